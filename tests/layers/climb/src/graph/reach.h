#pragma once

#include "../check/sync.h"

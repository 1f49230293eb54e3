#pragma once
#include "model/trace.h"

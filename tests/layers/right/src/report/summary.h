#pragma once
#include "check/result.h"
#include "model/trace.h"
#include "html_assets.h"

#pragma once
#include "check/check_result.h"
#include "model/trace.h"
#include "html_assets.h"

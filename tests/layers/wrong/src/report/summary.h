// A report that reaches up into the pipeline: the layering forbids it.
#pragma once

#include "model/trace.h"
#include "check/check_result.h"
#include "pipeline/stages.h"

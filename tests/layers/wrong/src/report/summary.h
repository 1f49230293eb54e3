// A report that reaches up into the pipeline: the layering forbids it.
#pragma once

#include "model/trace.h"
#include "check/result.h"
#include "pipeline/stages.h"

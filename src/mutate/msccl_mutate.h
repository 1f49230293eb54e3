// `collcheck mutate` on an MSCCL file: mutants as MSCCL XML, each labelled by
// reading its XML back and running every stage on every call mode, as the
// trace mutants are (gen/mutate.h: the label is computed, not assumed).
#pragma once

#include <string>
#include <vector>

#include "mutate/mutants.h"
#include "pipeline/stages.h"
#include "msccl/options.h"
#include "mutate/msccl_faults.h"

namespace cc::mutate {

// The label of every mode together: PASS when no mode has an error.
using MscclLabel = MutantLabel;

struct MscclMutant {
  std::string xml;  // the mutant file; its <algo name> records the change and the label
  MscclFault kind;
  MscclSite site;
  u32 site_index = 0;  // position among every site of the kind
  std::string what;
  MscclLabel label;
};

// Checks the MSCCL text `xml` in every mode and labels it for kind `k`.
MscclLabel label_msccl_mutant(const std::string& xml, MscclFault k, const msccl::Options& options,
                              const CheckOptions& check = {});

// Up to `count` mutants of kind `k` at distinct sites chosen by `seed`
// (count 0: every site), in site order.
Result<std::vector<MscclMutant>> make_msccl_mutants(const msccl::Program& p, MscclFault k, u64 seed, u32 count,
                                                   const msccl::Options& options);

}  // namespace cc::mutate

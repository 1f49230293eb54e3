// The operator of one op group (hcclvm-db.md §5, §6, §12.1): its members
// must agree on what they called (collcheck rule; the reference lets the
// highest rank win), V counts and all-to-all matrices are cross-checked
// between members, send/receive rows are paired.
#pragma once

#include <string>
#include <vector>

#include "io/hcclvm/groups.h"
#include "model/finding.h"
#include "model/op.h"

namespace cc::hcclvm {

// Importer findings: errors with HCCL's codes (101, 110, 111, 112 in
// GenGraph; 405 in SemanticCheck) and named warnings (code 0 + tag).
Finding import_error(u16 code, std::string message);
Finding import_warning(std::string tag, std::string message);

struct GroupOp {
  Op op;
  // The group cannot be checked as one operator (its findings say why):
  // members that disagree, an operator collcheck does not model, ...
  bool refused = false;
  std::vector<Finding> findings;
};

// Refuses the group: adds the finding to `out`, marks it refused; false.
bool refuse_group(GroupOp& out, u16 code, std::string message, std::vector<std::string> details = {});

// Builds the group's operator. Exit-2 problems (an opExtInfo blob that
// does not decode) come back as the error.
Result<GroupOp> assemble_op(Db& db, const OpGroup& group);

}  // namespace cc::hcclvm

// What an estimate leaves out, as short sentences a person reads beside a plan or a search's verdict
// (`result.caveats`). Each sentence is said only where it applies to the request: a plan whose
// inputs cover a cost (a stated communication time, a reserved share, a link bandwidth) is not told
// that the cost is missing.
//   estimate_caveats(request, &e)  // ["The data-parallel gradient reduction ... is not in the step time.", ...]
#pragma once

#include <string>
#include <vector>

#include "ppb/model/request.hpp"
#include "ppb/simulate/estimate.hpp"

namespace ppb {

// The caveats of a request's plans; with `estimate`, also those of that plan (stages closer to the
// memory limit than device.memory_margin).
std::vector<std::string> estimate_caveats(const Request& request, const Estimate* estimate);

}  // namespace ppb

// Factories of the standard passes, one file each under passes/ (the
// catalog in pass.cc lists them with their summaries).
#pragma once

#include <memory>
#include <vector>

#include "oxs/rewrite/passes/pass.h"

namespace oxs::rewrite {

std::unique_ptr<Pass> make_infer_pass(const PassOptions& o);           // infer_types.cc
std::unique_ptr<Pass> make_dead_code_pass(const PassOptions& o);       // dce.cc
std::unique_ptr<Pass> make_noop_pass(const PassOptions& o);            // noop.cc
std::unique_ptr<Pass> make_fold_pass(const PassOptions& o);            // fold.cc
std::unique_ptr<Pass> make_cse_pass(const PassOptions& o);             // cse.cc
std::unique_ptr<Pass> make_algebraic_pass(const PassOptions& o);       // algebraic.cc
std::unique_ptr<Pass> make_chain_collapse_pass(const PassOptions& o);  // chains.cc
std::unique_ptr<Pass> make_fuse_gemm_pass(const PassOptions& o);       // fuse_gemm.cc
std::unique_ptr<Pass> make_fuse_layernorm_pass(const PassOptions& o);  // fuse_layernorm.cc
std::unique_ptr<Pass> make_fuse_gelu_pass(const PassOptions& o);       // fuse_gelu.cc
std::unique_ptr<Pass> make_shape_fold_pass(const PassOptions& o);      // shape_fold.cc
std::unique_ptr<Pass> make_inline_pass(const PassOptions& o);          // inline.cc
std::unique_ptr<Pass> make_outline_pass(const PassOptions& o);         // outline.cc
// outline with the functions of `library` as patterns too (added to the
// model when first used).
std::unique_ptr<Pass> make_outline_pass(const PassOptions& o,
                                        std::shared_ptr<const ir::Model> library);
// Replaces every outline pass of `passes` by one that also uses the
// functions of `library` (`oxs opt --functions`, optimize(functions=));
// returns how many there were (0: the library would go unused).
size_t give_functions_to_outline(std::vector<std::unique_ptr<Pass>>& passes,
                                 const std::shared_ptr<const ir::Model>& library);
std::unique_ptr<Pass> make_fuse_attention_pass(const PassOptions& o);  // fuse_attention.cc
std::unique_ptr<Pass> make_break_adds_pass(const PassOptions& o);      // break_adds.cc

}  // namespace oxs::rewrite

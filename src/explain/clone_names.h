#pragma once
// The function a compiler-made clone was made from. GCC and Clang copy and
// split functions under new symbol names ("sqlite3BtreeNext.constprop.0",
// "releaseMemArray.part.0", "foo.cold"), and whether a build has the clone or
// the plain function depends on its flags, so the explain table matches
// functions across builds by the name with these suffixes removed.

#include <string>
#include <string_view>

namespace workgate {

/// A function name split at its clone suffixes.
struct CloneName {
  std::string base;    // the name the clone was made from; the whole name when no suffix
  std::string suffix;  // the suffixes removed, in dotted form (".part.0.cold"); "" for none
};

/// Splits a function name as DisplayFunctionName gives it (callgrind_profile.h)
/// into the function it was cloned from and its clone suffixes. Only these
/// suffix kinds are removed, each as the compiler writes it:
///   GCC:   .constprop.N (IPA constant propagation), .isra.N (IPA scalar
///          replacement), .part.N (function splitting), .lto_priv.N (a local
///          symbol LTO made unique), .cold and .cold.N (the cold part of a
///          function split by hot/cold partitioning), .localalias and
///          .localalias.N (a local alias of an interposable function);
///   Clang: .llvm.H (ThinLTO's promoted local; H a decimal or hex hash),
///          .cold.N (hot/cold splitting), .specialized.N (function
///          specialization), .__uniq.N (-funique-internal-linkage-names).
/// They may repeat ("foo.constprop.0.isra.0", "foo.part.0.cold"). A
/// demangled C++ name carries them as the demangler writes them, each in a
/// " [clone .isra.0]" of its own. Any other dotted suffix stays: a symbol
/// version ("memcpy@@GLIBC_2.14"), a C++ "..." parameter, a Go or Java
/// "pkg.Name", LLVM's renaming of duplicates ("foo.1"), target clones
/// ("foo.avx2.0"), OpenMP bodies ("foo._omp_fn.0"). A plain (not demangled)
/// name is cut only when what remains has no dot: the compilers add
/// suffixes to symbol names, and C and mangled C++ symbols have none.
/// A mangled C++ name whose suffix the demangler could not read
/// ("_ZL3foov.llvm.A1B2") is demangled once its suffixes are removed. Names
/// are text, so one case stays ambiguous: a Go function named `cold` in a
/// package whose path has no dot ("main.cold") reads as a cold part, and is cut.
CloneName SplitCloneName(std::string_view name);

}  // namespace workgate

"""The compile commands of a CMake build (its compile_commands.json) as the
CI scripts read them: which command compiles a C++ source, where the build
compiles it inside a unity batch (a generated unity_N_cxx.cxx that includes
each source of the batch in turn). ci/compile-alone and ci/mutations share it."""

import json
import os
import re
import shlex


def entries(build):
    """Every compile command of `build`; OSError when it has none to read."""
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        return json.load(f)


def is_unity_batch(entry):
    return "/Unity/" in entry["file"]


def batch_sources(entry):
    """The sources a unity batch's command compiles, in its order."""
    with open(entry["file"], encoding="utf-8") as f:
        return re.findall(r'^#include "([^"]+\.cc)"$', f.read(), re.M)


def argv(entry):
    """The command's arguments, each one a list item."""
    return shlex.split(entry["command"])


def holding(build, source):
    """The command that compiles `source`: its own, or its unity batch's;
    None when the build compiles it nowhere."""
    for entry in entries(build):
        if entry["file"] == source or (is_unity_batch(entry) and source in batch_sources(entry)):
            return entry
    return None

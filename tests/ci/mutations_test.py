#!/usr/bin/env python3
"""ci/mutations on lists of its own: a change that no test can see survives
and fails the check, a mutation whose text is gone is an error rather than a
pass, and neither the checkout nor the build directory is changed."""

import hashlib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BUILD, ROOT, ScriptTest, require_built  # noqa: E402

MUTATIONS = os.path.join(ROOT, "ci", "mutations")
SOURCE = "src/util/text.cc"


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class MutationsTest(ScriptTest):
    def setUp(self):
        super().setUp()
        require_built(self, os.path.join(BUILD, "tests", "workgate_tests"))
        # ci/mutations needs root or an unprivileged user namespace.
        self.env["PATH"] = os.environ["PATH"]

    def check(self, find, replace):
        listing = self.path("list.toml")
        with open(listing, "w") as f:
            f.write("[[mutation]]\nname = \"probe\"\nwhy = \"the test's own\"\n"
                    f"file = \"{SOURCE}\"\nfind = '''{find}'''\nreplace = '''{replace}'''\n"
                    "targets = [\"workgate_tests\"]\ntests = '^TextTest\\.TerminalSafe'\n")
        r = self.run_script([MUTATIONS, "--list", listing, BUILD], timeout=600)
        if r.returncode == 77:
            # A property of the machine the README names: no private mount
            # namespace (a chroot whose root directory is no mount point).
            self.skipTest(r.stderr.strip())
        return r

    def test_a_change_no_test_sees_survives_and_fails_the_check(self):
        before = (digest(os.path.join(ROOT, SOURCE)),
                  digest(os.path.join(BUILD, "tests", "workgate_tests")))
        # A comment's wording: it compiles, and no test can tell.
        r = self.check("// One code point: part of a sequence", "// One code point, part of a sequence")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"SURVIVED +probe")
        self.assertIn("mutations killed: 0/1", r.stdout)
        after = (digest(os.path.join(ROOT, SOURCE)),
                 digest(os.path.join(BUILD, "tests", "workgate_tests")))
        self.assertEqual(before, after, "the checkout or the build directory changed")

    def test_a_mutation_whose_text_is_gone_is_an_error(self):
        r = self.check("text that is not in the source", "anything")
        self.assertEqual(r.returncode, 5, r.stdout + r.stderr)
        self.assertIn("occurs 0 times", r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"BROKEN +probe")


if __name__ == "__main__":
    unittest.main()

"""What the Python end-to-end checks share: running the attn binary (no colour, a time limit), recording
failed checks, and the refusal convention (exit 1 for a folder attn will not run, 2 for a bad command line;
one line on stderr naming the field)."""
import os
import subprocess
import sys


class Checks:
    def __init__(self, attn):
        self.attn = attn
        self.failures = []

    def run(self, args, timeout=120):
        """The finished process, or one whose returncode is None and stderr says it ran out of time."""
        try:
            return subprocess.run([self.attn] + args, capture_output=True, text=True, timeout=timeout,
                                  env=dict(os.environ, NO_COLOR="1"))
        except subprocess.TimeoutExpired:
            return subprocess.CompletedProcess([self.attn] + args, None, "", f"(still running after {timeout} s)")

    def check(self, cond, what):
        if not cond:
            self.failures.append(what)
            print("FAIL:", what)
        return cond

    def refused(self, r, word, codes=(1,)):
        """attn stopped with one of the exit codes and one line on stderr that names `word`."""
        return r.returncode in codes and word in r.stderr and r.stderr.count("\n") == 1

    def finish(self, passed_message):
        if self.failures:
            print(f"{len(self.failures)} failed")
            sys.exit(1)
        print(passed_message)

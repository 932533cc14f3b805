# A Python benchmark as a newcomer writes one: fixed work, a checksum of it,
# and a timing (which moves) and a random number (which the pinned entropy
# fixes) beside it. tests/cli/init_cli_test.cc runs workgate init on it.
import random
import time

t0 = time.time()
table = {str(i): i * i for i in range(2000)}
print("checksum:", sum(table.values()))
print("time:", time.time() - t0)
print("random:", random.random())

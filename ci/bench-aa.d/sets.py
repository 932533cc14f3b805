# A/A subject for ci/bench-aa: a script whose work depends on Python's hash
# seed (set and dict layout), run unpinned by any workgate option.
import collections

words = [str(i * 7919 % 100003) for i in range(30000)]
seen = set(words)
prefixes = collections.Counter(w[:2] for w in seen)
print(len(seen), sorted(prefixes.items())[:3])

"""A stand-in for the GitHub Actions runner and the GitLab runner, for
examples_test.py: it runs the jobs of a workflow file, or of a GitLab CI
file, on this machine, the way the runner would run them.

GitHub: the `on:` trigger; the jobs in the order of their `needs`, each
under its `if`, once per matrix entry (a matrix read with fromJSON from a
job's output included), each in a fresh workspace, HOME and runner.temp;
`run:` steps in bash as the runner starts it, with the workflow's, job's
and step's env, GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH and the step
summary; a composite action used by its path (`uses: ./...`), its inputs
(defaults included) given to its steps as the runner gives them, and an
input it does not declare refused. The actions the files use from
elsewhere are stand-ins: actions/checkout (git fetch of a repository here,
by commit, tag or branch), actions/cache (a directory per key),
upload-artifact and download-artifact (a directory per run). The
expressions (`${{ }}`) are evaluated over the contexts the runner gives;
one that names a context, function, env variable, input or step that is
not there raises Unrunnable, so that a new kind is noticed, not guessed.

GitLab: `extends`, `!reference`, `rules: if`, the variables (predefined,
global, the job's, a project variable by its environment scope; `$NAME`
expanded, an unknown name refused), `cache`, `artifacts` and `needs`,
the checkout by GIT_STRATEGY and GIT_DEPTH, and before_script and script
as one bash script under `set -eo pipefail`, as the shell executor runs
them. The job's image is not started: the tools come from this machine,
and `apt-get` is a no-op on PATH.
"""

import fnmatch
import itertools
import json
import os
import re
import shutil
import subprocess

import yaml


class Unrunnable(Exception):
    """The file asks for what the stand-in cannot do as the runner would:
    an unknown expression, context, action, input or variable."""


# ---------------------------------------------------------------------------
# GitHub's expressions: the subset the files use, strictly.

_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<str>'(?:[^']|'')*')"
                    r"|(?P<op>==|!=|<=|>=|&&|\|\||[<>!().,\[\]])|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))")
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)
_STATUS_FUNCTIONS = ("success(", "failure(", "always(", "cancelled(")


class Strict(dict):
    """A context in which a missing key is a mistake of the file (env,
    inputs, steps, needs, matrix), where GitHub would quietly give ''."""

    def __init__(self, what, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.what = what

    def __missing__(self, key):
        raise Unrunnable(f"{self.what}.{key} is not defined here (defined: {', '.join(sorted(self)) or 'none'})")


def to_string(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def _truthy(value):
    return value not in (None, False, 0, "") and not (isinstance(value, float) and value != value)


def _number(value):
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip() or 0)
        except ValueError:
            return float("nan")
    return float("nan")


def _equal(a, b):
    """GitHub's ==: strings without regard to case; values of other types
    compared as numbers (null 0, booleans 0 and 1, objects never equal)."""
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if type(a) is type(b) and not isinstance(a, (dict, list)):
        return a == b
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return a is b
    return _number(a) == _number(b)


class _Parser:
    def __init__(self, text, ctx):
        self.text, self.ctx, self.tokens, pos = text, ctx, [], 0
        while text[pos:].strip():
            m = _TOKEN.match(text, pos)
            if not m:
                raise Unrunnable(f"cannot read the expression `{text.strip()}` at `{text[pos:].strip()}`")
            self.tokens.append((m.lastgroup, m.group(m.lastgroup)))
            pos = m.end()
        self.i = 0

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, None)

    def take(self, op=None):
        token = self.peek()
        if op is not None and token != ("op", op):
            raise Unrunnable(f"expected `{op}` in `{self.text.strip()}`")
        self.i += 1
        return token

    def parse(self):
        value = self.either()
        if self.i != len(self.tokens):
            raise Unrunnable(f"cannot read the expression `{self.text.strip()}`")
        return value

    def either(self):
        value = self.both()
        while self.peek() == ("op", "||"):
            self.take()
            right = self.both()
            value = value if _truthy(value) else right
        return value

    def both(self):
        value = self.equality()
        while self.peek() == ("op", "&&"):
            self.take()
            right = self.equality()
            value = right if _truthy(value) else value
        return value

    def equality(self):
        value = self.order()
        while self.peek() in (("op", "=="), ("op", "!=")):
            op = self.take()[1]
            right = self.order()
            value = _equal(value, right) == (op == "==")
        return value

    def order(self):
        value = self.unary()
        while self.peek() in (("op", "<"), ("op", "<="), ("op", ">"), ("op", ">=")):
            op = self.take()[1]
            a, b = _number(value), _number(self.unary())
            value = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        return value

    def unary(self):
        if self.peek() == ("op", "!"):
            self.take()
            return not _truthy(self.unary())
        return self.postfix(self.primary())

    def primary(self):
        kind, text = self.take()
        if kind == "num":
            return float(text)
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if (kind, text) == ("op", "("):
            value = self.either()
            self.take(")")
            return value
        if kind == "name":
            if self.peek() == ("op", "("):
                self.take()
                args = []
                while self.peek() != ("op", ")"):
                    args.append(self.either())
                    if self.peek() == ("op", ","):
                        self.take()
                self.take(")")
                return self.call(text, args)
            if text in ("true", "false", "null"):
                return {"true": True, "false": False, "null": None}[text]
            if text not in self.ctx or text.startswith("_"):
                raise Unrunnable(f"the context `{text}` is not available in `{self.text.strip()}` "
                                 f"(here: {', '.join(k for k in sorted(self.ctx) if not k.startswith('_'))})")
            return self.ctx[text]
        raise Unrunnable(f"cannot read the expression `{self.text.strip()}` at `{text}`")

    def postfix(self, value):
        while self.peek() in (("op", "."), ("op", "[")):
            if self.take()[1] == ".":
                kind, key = self.take()
                if kind != "name":
                    raise Unrunnable(f"`.{key}` is not supported here: `{self.text.strip()}`")
            else:
                key = self.either()
                self.take("]")
            if isinstance(value, dict):
                value = value[key] if isinstance(value, Strict) else value.get(key)
            elif isinstance(value, list) and isinstance(key, float):
                value = value[int(key)] if 0 <= key < len(value) else None
            else:
                value = None
        return value

    def call(self, name, args):
        status = self.ctx.get("_status", "success")
        if name in ("success", "failure", "always", "cancelled") and not args:
            return {"success": status == "success", "failure": status == "failure",
                    "always": True, "cancelled": status == "cancelled"}[name]
        if name == "format" and args:
            text = to_string(args[0]).replace("{{", "\0").replace("}}", "\1")
            text = re.sub(r"\{(\d+)\}", lambda m: to_string(args[1 + int(m.group(1))]), text)
            return text.replace("\0", "{").replace("\1", "}")
        if name == "fromJSON" and len(args) == 1:
            try:
                value = json.loads(to_string(args[0]))
            except ValueError as e:
                raise Unrunnable(f"fromJSON of `{to_string(args[0])}`: {e}") from e
            return float(value) if isinstance(value, int) and not isinstance(value, bool) else value
        raise Unrunnable(f"the function {name}() with {len(args)} arguments is not known here")


def evaluate(text, ctx):
    return _Parser(text, ctx).parse()


def interpolate(value, ctx):
    """A value of the file with its ${{ }} evaluated: the expression's own
    value where it is the whole value, else a string."""
    if not isinstance(value, str):
        return value
    found = list(_EXPR.finditer(value))
    if len(found) == 1 and not value[:found[0].start()].strip() and not value[found[0].end():].strip():
        return evaluate(found[0].group(1), ctx)
    return _EXPR.sub(lambda m: to_string(evaluate(m.group(1), ctx)), value)


def condition(value, ctx):
    """An `if:`: `success() && (...)` unless it calls a status function."""
    if value is None:
        return evaluate("success()", ctx)
    if isinstance(value, bool):
        return value and evaluate("success()", ctx)
    text = value.strip()
    found = list(_EXPR.finditer(text))
    if found:
        if len(found) != 1 or found[0].span() != (0, len(text)):
            raise Unrunnable(f"an `if:` that is not one expression: {text}")
        text = found[0].group(1)
    if not any(f in text for f in _STATUS_FUNCTIONS):
        text = f"success() && ({text})"
    return _truthy(evaluate(text, ctx))


def _read_pairs(path):
    """GITHUB_OUTPUT and GITHUB_ENV: name=value lines, and name<<DELIMITER blocks."""
    pairs = {}
    if not os.path.exists(path):
        return pairs
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line, i = lines[i], i + 1
        if not line:
            continue
        eq, heredoc = line.find("="), line.find("<<")
        if heredoc > 0 and (eq < 0 or heredoc < eq):
            name, delimiter = line[:heredoc], line[heredoc + 2:]
            body = []
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            i += 1
            pairs[name] = "\n".join(body)
        elif eq > 0:
            pairs[line[:eq]] = line[eq + 1:]
        else:
            raise Unrunnable(f"{path}: cannot read the line {line!r}")
    return pairs


def _lines(value):
    return [line.strip() for line in to_string(value).splitlines() if line.strip()]


def _copy(src, dst):
    if os.path.isdir(src):
        shutil.copytree(src, dst, dirs_exist_ok=True, symlinks=True)
    else:
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        shutil.copy2(src, dst)


def _git(*args, cwd=None):
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def fetch(url, ref, dest, depth):
    """A checkout of ref (a commit SHA, a tag or a branch) of the repository
    at url into dest: `git fetch` by name, as actions/checkout does."""
    os.makedirs(dest, exist_ok=True)
    _git("init", "-q", dest)
    if depth == 0:
        _git("-C", dest, "fetch", "-q", url, "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*")
        for name in (ref, f"origin/{ref}"):
            r = subprocess.run(["git", "-C", dest, "rev-parse", "--verify", "-q", f"{name}^{{commit}}"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                _git("-C", dest, "checkout", "-q", "--detach", r.stdout.strip())
                return
        raise RuntimeError(f"{url} has no {ref}")
    _git("-C", dest, "fetch", "-q", f"--depth={depth}", url, ref)
    _git("-C", dest, "checkout", "-q", "--detach", "FETCH_HEAD")


class _World:
    """The directories of one test's runs under tmp."""

    def __init__(self, tmp):
        self.tmp, self.dirs = tmp, 0
        os.makedirs(tmp, exist_ok=True)

    def new_dir(self, name):
        self.dirs += 1
        path = os.path.join(self.tmp, f"{self.dirs:03d}-{name}")
        os.makedirs(path)
        return path

    def machine(self):
        """The fresh machine a job runs on, at the same path for every job,
        as a hosted runner's workspace is (a stored baseline is only
        comparable where the suite's directory is the same)."""
        root = os.path.join(self.tmp, "machine")
        os.makedirs(root)
        return root

    def keep(self, machine, name):
        """The machine of a finished job, moved aside to be read."""
        self.dirs += 1
        kept = os.path.join(self.tmp, f"{self.dirs:03d}-{name}")
        os.rename(machine, kept)
        return kept


# ---------------------------------------------------------------------------
# GitHub Actions.

class GitHubWorld(_World):
    """What the runs of one test share: the repositories a checkout can
    fetch (owner/name -> a path here), the Actions cache, the runs'
    artifacts, the API's address, the job token and the repository."""

    def __init__(self, tmp, repositories, api_url, token, repository):
        super().__init__(tmp)
        self.repositories, self.api_url, self.token, self.repository = repositories, api_url, token, repository
        self.cache = {}  # key -> directory, in the order saved
        self.artifacts = {}  # run id -> {name: directory}
        self.runs = 0


class StepRun:
    def __init__(self, name, outcome, log="", outputs=None):
        self.name, self.outcome, self.log, self.outputs = name, outcome, log, outputs or {}


class JobRun:
    def __init__(self, job_id, matrix, root):
        self.id, self.matrix = job_id, matrix
        self.place(root)
        for d in (self.workspace, self.temp, self.home):
            os.makedirs(d)
        open(self.summary, "w").close()
        self.result = "skipped"
        self.steps = []
        self.outputs = {}
        self.env_base = {}  # the workflow's and the job's env
        self.env_added = {}  # GITHUB_ENV
        self.path_added = []  # GITHUB_PATH
        self.files = 0

    def place(self, root):
        self.root = root
        self.workspace = os.path.join(root, "work", "project", "project")
        self.temp = os.path.join(root, "work", "_temp")
        self.home = os.path.join(root, "home")
        self.summary = os.path.join(self.temp, "step-summary.md")

    def step(self, name):
        """The steps named so (by name, uses or run), in order."""
        return [s for s in self.steps if s.name == name]

    def log(self):
        return "\n".join(f"--- {s.name}: {s.outcome}\n{s.log}" for s in self.steps)


class WorkflowRun:
    """One run of a workflow file on one event."""

    SIMULATED = {
        "actions/checkout": {"repository", "ref", "path", "fetch-depth", "persist-credentials"},
        "actions/cache/restore": {"path", "key", "restore-keys"},
        "actions/cache/save": {"path", "key"},
        "actions/upload-artifact": {"name", "path", "if-no-files-found"},
        "actions/download-artifact": {"name", "pattern", "path", "run-id", "github-token", "merge-multiple"},
    }

    def __init__(self, world, path, event_name, event, sha, ref):
        self.world, self.path = world, path
        with open(path, encoding="utf-8") as f:
            self.doc = yaml.safe_load(f)
        if True in self.doc:  # YAML 1.1 reads the key `on` as True
            self.doc["on"] = self.doc.pop(True)
        world.runs += 1
        self.id = 7000 + world.runs
        self.name = self.doc.get("name", os.path.basename(path))
        self.event_name, self.event = event_name, event
        self.event_path = os.path.join(world.new_dir(f"event-{self.id}"), "event.json")
        with open(self.event_path, "w") as f:
            json.dump(event, f)
        self.github = {
            "event_name": event_name, "event": event, "sha": sha, "ref": ref,
            "repository": world.repository, "workflow": self.name, "run_id": str(self.id),
            "run_attempt": "1", "token": world.token, "server_url": "https://github.com",
            "api_url": world.api_url, "workspace": None, "action_path": None,
        }
        self.jobs = {}  # job id -> [JobRun]
        self.concurrency = None

    # -- the run -------------------------------------------------------------
    def triggered(self):
        on = self.doc["on"]
        if isinstance(on, str):
            on = {on: None}
        elif isinstance(on, list):
            on = {name: None for name in on}
        if self.event_name not in on:
            return False
        spec = on[self.event_name] or {}
        unknown = set(spec) - {"branches", "types", "workflows"}
        if unknown:
            raise Unrunnable(f"the trigger {self.event_name} has filters the stand-in does not know: {unknown}")
        if "branches" in spec:
            branch = self.github["ref"].removeprefix("refs/heads/")
            if not any(fnmatch.fnmatchcase(branch, b) for b in spec["branches"]):
                return False
        if "workflows" in spec and self.event["workflow_run"]["name"] not in spec["workflows"]:
            return False
        if "types" in spec and self.event.get("action") not in spec["types"]:
            return False
        return True

    def run(self):
        if not self.triggered():
            return self
        ctx = {"github": self.github, "inputs": {}, "vars": {}}
        if "concurrency" in self.doc:
            c = self.doc["concurrency"]
            self.concurrency = (to_string(interpolate(c["group"], ctx)),
                                interpolate(c.get("cancel-in-progress", False), ctx))
        self.env = {k: to_string(interpolate(v, ctx)) for k, v in (self.doc.get("env") or {}).items()}
        pending = list(self.doc["jobs"])
        while pending:
            ready = [j for j in pending if all(n in self.jobs for n in self._needs(j))]
            if not ready:
                raise Unrunnable(f"jobs whose needs cannot be met: {pending}")
            for job_id in ready:
                self._run_job(job_id)
                pending.remove(job_id)
        return self

    def result(self, job_id):
        runs = self.jobs.get(job_id, [])
        results = {r.result for r in runs}
        if not runs or results == {"skipped"}:
            return "skipped"
        return "failure" if "failure" in results else "success"

    def _needs(self, job_id):
        needs = self.doc["jobs"][job_id].get("needs", [])
        return [needs] if isinstance(needs, str) else list(needs)

    def _run_job(self, job_id):
        job = self.doc["jobs"][job_id]
        needs = Strict("needs", {n: {"result": self.result(n), "outputs": self.jobs[n][-1].outputs
                                     if self.jobs[n] else {}} for n in self._needs(job_id)})
        status = "success" if all(self.result(n) == "success" for n in needs) else "failure"
        ctx = {"github": self.github, "needs": needs, "inputs": {}, "vars": {}, "_status": status}
        self.jobs[job_id] = []
        if not condition(job.get("if"), ctx):
            return
        matrices = self._matrices(job, ctx)
        for index, matrix in enumerate(matrices):
            run = JobRun(job_id, matrix, self.world.machine())
            self.jobs[job_id].append(run)
            jctx = {"github": dict(self.github, workspace=run.workspace), "needs": needs, "inputs": {},
                    "vars": {}, "matrix": Strict("matrix", matrix or {}),
                    "strategy": {"job-index": float(index), "job-total": float(len(matrices))},
                    "runner": {"os": "Linux", "arch": "X64", "temp": run.temp, "name": "stand-in"},
                    "job": {"status": "success"}, "steps": Strict("steps")}
            interpolate(job.get("runs-on", ""), jctx)
            job_env = {k: to_string(interpolate(v, dict(jctx, env=Strict("env", self.env))))
                       for k, v in (job.get("env") or {}).items()}
            run.env_base = {**self.env, **job_env}
            status = self._run_steps(run, job.get("steps", []), jctx, None)
            run.result = status
            jctx["env"] = Strict("env", {**run.env_base, **run.env_added})
            run.outputs = {k: to_string(interpolate(v, jctx)) for k, v in (job.get("outputs") or {}).items()}
            run.place(self.world.keep(run.root, f"run{self.id}-{job_id}-{index}"))

    def _matrices(self, job, ctx):
        strategy = job.get("strategy")
        if not strategy:
            return [None]
        matrix = interpolate(strategy.get("matrix"), ctx)
        if not isinstance(matrix, dict) or {"include", "exclude"} & set(matrix):
            raise Unrunnable(f"a matrix the stand-in cannot expand: {matrix!r}")
        axes = {}
        for key, values in matrix.items():
            values = interpolate(values, ctx)
            if not isinstance(values, list) or not values:
                raise Unrunnable(f"matrix.{key} is not a list of values: {values!r}")
            axes[key] = values
        return [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())]

    # -- steps ---------------------------------------------------------------
    def _run_steps(self, run, steps, ctx, action_path):
        """Runs steps (a job's, or a composite action's) and returns the
        status they end with."""
        status = "success"
        for step in steps:
            # The env context: the workflow's and job's env, GITHUB_ENV, and
            # in a composite action the env of the step that uses it.
            ctx = dict(ctx, _status=status, env=Strict("env", {**run.env_base, **run.env_added,
                                                               **ctx.get("_caller_env", {})}))
            name = step.get("name") or step.get("uses") or step["run"].splitlines()[0]
            if not condition(step.get("if"), ctx):
                outcome, outputs, log = "skipped", {}, ""
            else:
                step_env = {k: to_string(interpolate(v, ctx)) for k, v in (step.get("env") or {}).items()}
                sctx = dict(ctx, env=Strict("env", {**ctx["env"], **step_env}), _step_env=step_env)
                try:
                    outcome, outputs, log = self._run_step(run, step, sctx, action_path)
                except RuntimeError as e:
                    outcome, outputs, log = "failure", {}, str(e)
            run.steps.append(StepRun(name, outcome, log, outputs))
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": outputs, "outcome": outcome, "conclusion": outcome}
            if outcome == "failure":
                status = "failure"
        return status

    def _run_step(self, run, step, ctx, action_path):
        if "run" in step:
            script = to_string(interpolate(step["run"], ctx))
            cwd = os.path.join(run.workspace, to_string(interpolate(step.get("working-directory", "."), ctx)))
            return self._script(run, script, step.get("shell"), cwd, dict(ctx["env"]), action_path)
        uses = step["uses"]
        given = {k: to_string(interpolate(v, ctx)) for k, v in (step.get("with") or {}).items()}
        if uses.startswith("./"):
            return self._composite(run, os.path.join(run.workspace, uses), given, ctx)
        action = uses.split("@")[0]
        if action not in self.SIMULATED:
            raise Unrunnable(f"the action {uses} has no stand-in here")
        unknown = set(given) - self.SIMULATED[action]
        if unknown:
            raise Unrunnable(f"{action} is given inputs the stand-in does not know: {sorted(unknown)}")
        handler = {"actions/checkout": self._checkout, "actions/cache/restore": self._cache_restore,
                   "actions/cache/save": self._cache_save, "actions/upload-artifact": self._upload,
                   "actions/download-artifact": self._download}[action]
        return handler(run, given)

    def _script(self, run, script, shell, cwd, env_context, action_path):
        run.files += 1
        files = {name: os.path.join(run.temp, f"{name.lower()}-{run.files}")
                 for name in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH")}
        for f in files.values():
            open(f, "w").close()
        path = os.path.join(run.temp, f"script-{run.files}.sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        if shell == "bash":
            argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", path]
        elif shell is None:
            argv = ["bash", "-e", path]
        else:
            raise Unrunnable(f"the shell {shell!r} is not known here")
        env = {
            "PATH": os.pathsep.join(list(reversed(run.path_added)) + [os.environ["PATH"]]),
            "HOME": run.home, "LC_ALL": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": run.workspace, "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_EVENT_PATH": self.event_path, "GITHUB_SHA": self.github["sha"],
            "GITHUB_REF": self.github["ref"], "GITHUB_REPOSITORY": self.github["repository"],
            "GITHUB_RUN_ID": str(self.id), "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": self.world.api_url,
            "GITHUB_WORKFLOW": self.name, "GITHUB_JOB": run.id, "GITHUB_STEP_SUMMARY": run.summary,
            "RUNNER_TEMP": run.temp, "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_NAME": "stand-in",
            **env_context, **files,
        }
        if action_path:
            env["GITHUB_ACTION_PATH"] = action_path
        r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        run.env_added.update(_read_pairs(files["GITHUB_ENV"]))
        with open(files["GITHUB_PATH"]) as f:
            run.path_added += [line.strip() for line in f if line.strip()]
        outcome = "success" if r.returncode == 0 else "failure"
        return outcome, _read_pairs(files["GITHUB_OUTPUT"]), f"(exit {r.returncode})\n{r.stdout}{r.stderr}"

    def _composite(self, run, action_dir, given, ctx):
        action_dir = os.path.realpath(action_dir)
        path = os.path.join(action_dir, "action.yml")
        if not os.path.exists(path):
            raise RuntimeError(f"no action at {action_dir} (has the checkout put it there?)")
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        if doc["runs"]["using"] != "composite":
            raise Unrunnable(f"{path}: only composite actions are run here")
        spec = doc.get("inputs") or {}
        unknown = set(given) - set(spec)
        if unknown:
            raise Unrunnable(f"{path} declares no input {sorted(unknown)}")
        actx = {"github": dict(ctx["github"], action_path=action_dir), "runner": ctx["runner"],
                "env": ctx["env"], "job": ctx["job"], "steps": Strict("steps"),
                "_caller_env": {**ctx.get("_caller_env", {}), **ctx["_step_env"]}, "_status": "success"}
        inputs = {}
        for name, s in spec.items():
            inputs[name] = given[name] if name in given else to_string(interpolate((s or {}).get("default", ""), actx))
        actx["inputs"] = Strict("inputs", inputs)
        first = len(run.steps)
        status = self._run_steps(run, doc["runs"]["steps"], actx, action_dir)
        outputs = {k: to_string(interpolate(v["value"], actx)) for k, v in (doc.get("outputs") or {}).items()}
        log = "\n".join(f"  - {s.name}: {s.outcome}" for s in run.steps[first:])
        return status, outputs, log

    # -- the actions' stand-ins ---------------------------------------------
    @staticmethod
    def _inside(run, path):
        """A path of an action's input: from the workspace, unless absolute."""
        return os.path.normpath(os.path.join(run.workspace, path))

    def _checkout(self, run, given):
        if given.get("persist-credentials") != "false":
            raise Unrunnable("actions/checkout without persist-credentials: false leaves the token in .git/config")
        repository = given.get("repository") or self.github["repository"]
        if repository not in self.world.repositories:
            raise RuntimeError(f"actions/checkout: no repository {repository!r} "
                               f"(known here: {', '.join(sorted(self.world.repositories))})")
        ref = given.get("ref") or (self.github["sha"] if repository == self.github["repository"] else "HEAD")
        dest = self._inside(run, given.get("path") or ".")
        if os.path.commonpath([dest, run.workspace]) != run.workspace:
            raise Unrunnable(f"actions/checkout: path {given.get('path')} is outside the workspace")
        fetch("file://" + self.world.repositories[repository], ref, dest, int(given.get("fetch-depth") or 1))
        return "success", {}, f"checked out {repository} at {ref} into {dest}"

    def _cache_restore(self, run, given):
        key = given["key"]
        paths = _lines(given["path"])
        entry = self.world.cache.get(key)
        matched = key if entry else ""
        if entry is None:
            for prefix in _lines(given.get("restore-keys", "")):
                for k in reversed(list(self.world.cache)):
                    if k.startswith(prefix):
                        entry, matched = self.world.cache[k], k
                        break
                if entry:
                    break
        if entry:
            for i, p in enumerate(paths):
                if os.path.exists(os.path.join(entry, str(i))):
                    _copy(os.path.join(entry, str(i)), self._inside(run, p))
        return "success", {"cache-hit": "true" if matched == key else "false",
                           "cache-matched-key": matched}, f"cache {key}: {'restored ' + matched if entry else 'none'}"

    def _cache_save(self, run, given):
        key = given["key"]
        if key in self.world.cache:
            return "success", {}, f"cache {key}: already there, not saved"
        entry = self.world.new_dir("cache")
        for i, p in enumerate(_lines(given["path"])):
            src = self._inside(run, p)
            if not os.path.exists(src):
                return "failure", {}, f"cache {key}: the path {p} does not exist"
            _copy(src, os.path.join(entry, str(i)))
        self.world.cache[key] = entry
        return "success", {}, f"cache {key}: saved"

    def _upload(self, run, given):
        name = given.get("name") or "artifact"
        store = self.world.artifacts.setdefault(self.id, {})
        if name in store:
            return "failure", {}, f"an artifact named {name} already exists in this run"
        src = self._inside(run, given["path"])
        if not os.path.exists(src):
            policy = given.get("if-no-files-found") or "warn"
            return ("failure" if policy == "error" else "success"), {}, f"no files at {given['path']}"
        dest = self.world.new_dir(f"artifact-{name}")
        _copy(src, dest if os.path.isdir(src) else os.path.join(dest, os.path.basename(src)))
        store[name] = dest
        return "success", {}, f"uploaded {name}"

    def _download(self, run, given):
        run_id = int(given.get("run-id") or self.id)
        if run_id != self.id and not given.get("github-token"):
            raise Unrunnable("download-artifact from another run needs github-token")
        store = self.world.artifacts.get(run_id, {})
        dest = self._inside(run, given.get("path") or ".")
        if given.get("name"):
            if given["name"] not in store:
                return "failure", {}, f"no artifact {given['name']} in run {run_id}"
            _copy(store[given["name"]], dest)
            return "success", {}, f"downloaded {given['name']}"
        names = [n for n in sorted(store) if fnmatch.fnmatchcase(n, given.get("pattern") or "*")]
        for n in names:
            _copy(store[n], dest if given.get("merge-multiple") == "true" else os.path.join(dest, n))
        return "success", {}, f"downloaded {names}"


# ---------------------------------------------------------------------------
# GitLab CI.

class _Reference(list):
    pass


class GitLabLoader(yaml.SafeLoader):
    """YAML's safe loader, with GitLab's !reference tag."""


GitLabLoader.add_constructor("!reference", lambda loader, node: _Reference(loader.construct_sequence(node)))
_GITLAB_KEYWORDS = {"variables", "include", "stages", "default", "workflow", "image", "services", "cache",
                    "before_script", "after_script"}
_GITLAB_VARIABLE = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
# Predefined variables a pipeline may lack (a push has no merge request, a
# merge request pipeline no branch): in a rule, unset is null.
GITLAB_MAYBE_UNSET = {"CI_COMMIT_BRANCH", "CI_COMMIT_TAG", "CI_MERGE_REQUEST_IID",
                      "CI_MERGE_REQUEST_DIFF_BASE_SHA", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"}


def _merge(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = _merge(a[k], v) if k in a else v
        return out
    return b


class GitLabWorld(_World):
    """What the pipelines of one test share: the project's repository, the
    runner's cache, the fake API (which serves the default branch's latest
    job artifacts), and the project's CI/CD variables, each with its
    environment scope."""

    def __init__(self, tmp, origin, api, project_variables):
        super().__init__(tmp)
        self.origin, self.api, self.project_variables = origin, api, project_variables
        self.cache = {}
        self.pipelines = 0
        self.shims = os.path.join(tmp, "image-shims")
        os.makedirs(self.shims)
        # The image's package manager: the tools are this machine's.
        with open(os.path.join(self.shims, "apt-get"), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(self.shims, "apt-get"), 0o755)


class GitLabJobRun:
    def __init__(self, name):
        self.name, self.result, self.log, self.dir, self.variables = name, "skipped", "", None, {}
        self.cache_key = None


class Pipeline:
    """One pipeline of a GitLab CI file: source push (of branch) or
    merge_request_event (of mr: iid, diff base, source branch), at sha."""

    def __init__(self, world, path, source, sha, branch=None, mr=None):
        self.world, self.source, self.sha, self.branch, self.mr = world, source, sha, branch, mr
        with open(path, encoding="utf-8") as f:
            self.doc = yaml.load(f, Loader=GitLabLoader)  # noqa: S506 (a SafeLoader with !reference)
        world.pipelines += 1
        self.id = 300 + world.pipelines
        self.jobs = {}
        self.artifacts = {}  # job -> directory

    def predefined(self, name, job_id, project_dir):
        v = {"CI": "true", "GITLAB_CI": "true", "CI_PROJECT_DIR": project_dir, "CI_PROJECT_ID": "5",
             "CI_PROJECT_PATH": "octo/project", "CI_SERVER_URL": "https://gitlab.example",
             "CI_API_V4_URL": self.world.api.url + "/api/v4", "CI_DEFAULT_BRANCH": "main",
             "CI_COMMIT_SHA": self.sha, "CI_PIPELINE_SOURCE": self.source, "CI_PIPELINE_ID": str(self.id),
             "CI_PIPELINE_URL": f"https://gitlab.example/octo/project/-/pipelines/{self.id}",
             "CI_JOB_NAME": name, "CI_JOB_ID": str(job_id),
             "CI_JOB_URL": f"https://gitlab.example/octo/project/-/jobs/{job_id}",
             "CI_JOB_TOKEN": f"job-token-{job_id}"}
        if self.branch:
            v.update(CI_COMMIT_BRANCH=self.branch, CI_COMMIT_REF_NAME=self.branch)
        if self.mr:
            v.update(CI_MERGE_REQUEST_IID=str(self.mr["iid"]), CI_MERGE_REQUEST_DIFF_BASE_SHA=self.mr["base"],
                     CI_MERGE_REQUEST_TARGET_BRANCH_NAME="main", CI_COMMIT_REF_NAME=self.mr["branch"])
        return v

    def resolved(self, name, seen=()):
        if name in seen or name not in self.doc:
            raise Unrunnable(f"extends: no job {name}")
        job = self.doc[name]
        extends = job.get("extends", [])
        base = {}
        for parent in [extends] if isinstance(extends, str) else extends:
            base = _merge(base, self.resolved(parent, seen + (name,)))
        return _merge(base, {k: v for k, v in job.items() if k != "extends"})

    def _script(self, job, key):
        out = []
        for item in job.get(key, []):
            if isinstance(item, _Reference):
                target = self.resolved(item[0])
                for k in item[1:]:
                    target = target[k]
                out += self._script({"x": target}, "x")
            elif isinstance(item, list):
                out += item
            else:
                out.append(item)
        return out

    @staticmethod
    def expand(value, known, what):
        def one(m):
            if m.group(0) == "$$":
                return "$"
            name = m.group(1) or m.group(2)
            if name not in known:
                raise Unrunnable(f"{what}: ${name} is not a variable here")
            return known[name]
        return _GITLAB_VARIABLE.sub(one, to_string(value))

    @staticmethod
    def _rule(text, variables):
        """A `rules: if`: $VARIABLE, "string", null, ==, !=, &&, || and parentheses."""
        tokens = re.findall(r'\$[A-Za-z_][A-Za-z0-9_]*|"[^"]*"|\'[^\']*\'|==|!=|&&|\|\||[()]|\S+', text)
        pos = 0

        def atom():
            nonlocal pos
            t = tokens[pos]
            pos += 1
            if t == "(":
                value = either()
                if tokens[pos] != ")":
                    raise Unrunnable(f"rules: no ) in {text!r}")
                pos += 1
                return value
            if t.startswith("$"):
                if t[1:] not in variables and t[1:] not in GITLAB_MAYBE_UNSET:
                    raise Unrunnable(f"rules: {t} is not a variable here")
                return variables.get(t[1:])
            if t[0] in "\"'":
                return t[1:-1]
            if t == "null":
                return None
            raise Unrunnable(f"rules: cannot read {t!r} in {text!r}")

        def compare():
            nonlocal pos
            value = atom()
            if pos < len(tokens) and tokens[pos] in ("==", "!="):
                op = tokens[pos]
                pos += 1
                value = (value == atom()) == (op == "==")
            return value

        def both():
            nonlocal pos
            value = compare()
            while pos < len(tokens) and tokens[pos] == "&&":
                pos += 1
                right = compare()
                value = bool(value) and bool(right)
            return value

        def either():
            nonlocal pos
            value = both()
            while pos < len(tokens) and tokens[pos] == "||":
                pos += 1
                right = both()
                value = bool(value) or bool(right)
            return value

        value = either()
        if pos != len(tokens):
            raise Unrunnable(f"rules: cannot read {text!r}")
        return bool(value)

    def run(self):
        names = [n for n in self.doc if n not in _GITLAB_KEYWORDS and not n.startswith(".")]
        global_vars = self.doc.get("variables") or {}
        chosen = {}
        for name in names:
            job = self.resolved(name)
            variables = {**self.predefined(name, 0, ""), **{k: to_string(v) for k, v in global_vars.items()},
                         **{k: to_string(v) for k, v in (job.get("variables") or {}).items()}}
            for rule in job.get("rules", [{}]):
                if "if" not in rule or self._rule(rule["if"], variables):
                    if rule.get("when", "on_success") != "never":
                        chosen[name] = (job, rule.get("when", "on_success"))
                    break
        pending = list(chosen)
        while pending:
            ready = [n for n in pending
                     if all((need["job"] if isinstance(need, dict) else need) in self.jobs
                            for need in chosen[n][0].get("needs", []))]
            if not ready:
                raise Unrunnable(f"needs that cannot be met: {pending}")
            for name in ready:
                self._run_job(name, *chosen[name])
                pending.remove(name)
        return self

    def _run_job(self, name, job, when):
        run = self.jobs[name] = GitLabJobRun(name)
        needs = [n if isinstance(n, dict) else {"job": n} for n in job.get("needs", [])]
        if when != "always" and any(self.jobs[n["job"]].result != "success" for n in needs):
            return
        root = self.world.machine()
        project_dir = os.path.join(root, "builds", "octo", "project")
        home = os.path.join(root, "home")
        os.makedirs(home)
        job_id = self.id * 10 + len(self.jobs)
        known = self.predefined(name, job_id, project_dir)
        for k, v in list((self.doc.get("variables") or {}).items()) + list((job.get("variables") or {}).items()):
            known[k] = self.expand(v, known, f"{name}: variables: {k}")
        # The project's CI/CD variables, each given only to the jobs of its
        # environment scope, and over the file's.
        scope = (job.get("environment") or {}).get("name")
        for k, (value, env_scope) in self.world.project_variables.items():
            if env_scope in ("*", scope):
                known[k] = value
        run.variables = known
        self.world.api.gl_job_tokens.add(known["CI_JOB_TOKEN"])
        # The checkout.
        strategy = known.get("GIT_STRATEGY", "fetch")
        if strategy == "none":
            os.makedirs(project_dir)
        else:
            depth = int(known.get("GIT_DEPTH", "20") or 0)
            fetch("file://" + self.world.origin, self.sha, project_dir, depth)
        # The cache, by its key, as the runner keeps it.
        cache = job.get("cache")
        if cache:
            key = self.expand(cache.get("key", "default"), known, f"{name}: cache: key")
            if "/" in key or "%2F" in key.upper() or not key.strip(".") or "$" in key:
                raise Unrunnable(f"{name}: the cache key {key!r} is not one GitLab keeps")
            run.cache_key = key
            if key in self.world.cache:
                _copy(self.world.cache[key], project_dir)
        for need in needs:
            if need.get("artifacts", True) and need["job"] in self.artifacts:
                _copy(self.artifacts[need["job"]], project_dir)
        script = self._script(job, "before_script") + self._script(job, "script")
        path = os.path.join(root, "script.sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write("set -eo pipefail\n" + "\n".join(script) + "\n")
        env = {**known, "PATH": self.world.shims + os.pathsep + os.environ["PATH"], "HOME": home,
               "LC_ALL": "C.UTF-8"}
        r = subprocess.run(["bash", "--noprofile", "--norc", path], cwd=project_dir, env=env,
                           capture_output=True, text=True, timeout=900)
        run.result = "success" if r.returncode == 0 else "failure"
        run.log = f"(exit {r.returncode})\n{r.stdout}{r.stderr}"
        if cache and run.result == "success":
            saved = self.world.new_dir("gitlab-cache")
            for p in cache.get("paths", []):
                if os.path.exists(os.path.join(project_dir, p)):
                    _copy(os.path.join(project_dir, p), os.path.join(saved, p))
            self.world.cache[run.cache_key] = saved
        artifacts = job.get("artifacts")
        if artifacts and (artifacts.get("when", "on_success") == "always" or run.result == "success"):
            kept = self.artifacts[name] = self.world.new_dir(f"artifacts-{name}")
            for p in artifacts.get("paths", []):
                if os.path.exists(os.path.join(project_dir, p)):
                    _copy(os.path.join(project_dir, p), os.path.join(kept, p))
            # The API serves the default branch's latest successful job's files.
            if self.branch and run.result == "success":
                for top, _, files in os.walk(kept):
                    for f in files:
                        full = os.path.join(top, f)
                        with open(full, "rb") as fh:
                            self.world.api.gl_artifacts[(self.branch, name, os.path.relpath(full, kept))] = fh.read()
        run.dir = os.path.join(self.world.keep(root, f"pipeline{self.id}-{name}"), "builds", "octo", "project")

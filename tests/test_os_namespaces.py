"""A hook cannot reach the harness or the machine through its platform (issue 32):
the harness's own platforms start with a scrubbed environment, a memory limit and a
temporary folder of their own, in PID and mount namespaces where the machine has
them (adapters/isolation.py; the threat model is docs/protocol.md).

Each hostile hook below did harm on main a080317: it read a token from the harness's
environment into the results, killed every process of the user (``kill -9 -1``),
killed its runner and outlived the run, or made the harness SIGKILL a pid it wrote
into a ``.pids`` file. The tests that would let a failure do that harm run the
harness inside a PID namespace of their own, and skip where the machine has none.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from adapters import isolation
from adapters.isolation import namespace_prefix, remove_tree, sweep_stale
from runners._cli import main

ROOT = Path(__file__).resolve().parent.parent
PLATFORMS = ("python", "rust", "js")
SECRET = "hanzo-test-token-5f0c1d"
NO_NAMESPACES = "this machine starts no PID namespaces (unshare --pid --fork --mount-proc)"
needs_namespaces = pytest.mark.skipif(namespace_prefix() is None, reason=NO_NAMESPACES)


def hook_case(case_id: str, command: str, expected: dict[str, Any], **hook: Any) -> dict[str, Any]:
    return {
        "id": case_id,
        "description": f"A hostile hook: {command}",
        "tags": ["hostile"],
        "source": {"kind": "derived", "ref": "tests/test_os_namespaces.py"},
        "clauses": ["HOOK-10"],
        "input": {
            "hooks": [{"event": "pre_tool_use", "command": command, "tool_pattern": "*", **hook}],
            "event": "pre_tool_use",
            "tool_name": "t",
            "tool_input": {},
            "session_id": "",
            "env": {"PATH": "/usr/bin:/bin"},
            "cwd": "{root}",
            "observe": [],
        },
        "expected": {
            "decision": "allow",
            "reason": None,
            "ran": [0],
            "log": [{"code": "hook_allow", "hook": 0, "exit_code": 0, "signal": None}],
            "saw": {},
            "leftover_processes": 0,
            **expected,
        },
    }


def denied(reason: str | None = None) -> dict[str, Any]:
    log = [{"code": "hook_deny", "hook": 0, "exit_code": 2, "signal": None}]
    return {"decision": "deny", "log": log, **({} if reason is None else {"reason": reason})}


TIMED_OUT = {
    "decision": "error",
    "reason": "hook timed out after 300 ms",
    "log": [{"code": "hook_timeout", "hook": 0, "exit_code": None, "signal": None}],
}


def write_hooks_file(tmp_path: Path, cases: list[dict[str, Any]]) -> Path:
    doc = {
        "domain": "hooks",
        "version": 1,
        "description": "Hostile hooks written by tests/test_os_namespaces.py.",
        "tags": {"hostile": "a hook that attacks its platform or the machine"},
        "cases": cases,
    }
    path = tmp_path / "vectors" / "hooks.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


def run_args(vectors: Path, out: Path, *platforms: str) -> list[str]:
    chosen = [arg for p in platforms or PLATFORMS for arg in ("--platform", p)]
    return [
        "run", "-q", "--no-default-vectors", "--vectors", str(vectors), *chosen,
        "--format", "json", "--output", str(out),
    ]  # fmt: skip


def statuses(out: Path) -> dict[tuple[str, str], dict[str, Any]]:
    results = json.loads(out.read_text(encoding="utf-8"))["results"]
    return {(r["platform"], r["case"]): r for r in results}


def alive_with_argument(argument: str) -> list[int]:
    """Live (non-zombie) processes with ``argument`` on their command line."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if argument.encode() in argv and state not in ("Z", "X"):
            found.append(int(proc.name))
    return found


# -- the environment -----------------------------------------------------------------


@pytest.mark.parametrize("in_process", [False, True], ids=["served", "in-process"])
def test_a_hook_reads_none_of_the_harness_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_process: bool
) -> None:
    # The platform's own environment ($PPID is the platform) holds no harness variable;
    # in-process, the OS-domain cases still run in a served child, not in the harness.
    monkeypatch.setenv("HANZO_TEST_CI_TOKEN", SECRET)
    leak = "tr '\\0' '\\n' < /proc/$PPID/environ >&2; exit 2"
    vectors = write_hooks_file(tmp_path, [hook_case("parent-environ", leak, denied())])
    out = tmp_path / "results.json"
    platforms = ("python", "rust") if in_process else PLATFORMS
    argv = run_args(vectors, out, *platforms) + (["--in-process"] if in_process else [])
    main(argv)
    results = statuses(out)
    assert len(results) == len(platforms)
    for (platform, _), result in results.items():
        reason = result["actual"]["reason"]
        assert "PATH=/usr/local/bin:/usr/bin:/bin" in reason, (platform, reason)
        assert SECRET not in reason, platform
    assert SECRET not in out.read_text(encoding="utf-8")


@needs_namespaces
def test_no_process_a_hook_can_see_holds_the_harness_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In its namespace a hook sees its platform and its own processes only: not the
    # harness, nor any other process of the user (/proc is the namespace's).
    monkeypatch.setenv("HANZO_TEST_CI_TOKEN", SECRET)
    every = "cat /proc/[0-9]*/environ | tr '\\0' '\\n' >&2; ls /proc | grep -c '^[0-9]' >&2; exit 2"
    vectors = write_hooks_file(tmp_path, [hook_case("every-environ", every, denied())])
    out = tmp_path / "results.json"
    main(run_args(vectors, out))
    for platform in PLATFORMS:
        reason = statuses(out)[platform, "every-environ"]["actual"]["reason"]
        assert SECRET not in reason and "HANZO_CONFORMANCE_ISOLATION=namespace" in reason
        # The platform, the hook's shell, cat and ls (grep may have ended): no more.
        assert int(reason.rsplit("\n", 1)[-1]) <= 5, reason


# -- signals and leftovers -----------------------------------------------------------


@needs_namespaces
def test_hooks_that_kill_everything_or_their_runner_end_only_themselves(tmp_path: Path) -> None:
    cases = [
        hook_case("kill-everything", "kill -9 -1; exit 0", {}),
        # Today's harness: the runner dies, `sleep` outlives the run on every platform.
        hook_case("kill-the-runner", "kill $PPID; exec sleep 4711", TIMED_OUT, timeout_ms=300),
        hook_case("kill-9-the-runner", "kill -9 $PPID; exec sleep 4712", TIMED_OUT, timeout_ms=300),
        # A process that leaves the hook's session is still in the namespace: counted
        # and killed (HOOK-10's scope ends at setsid; the namespace's does not).
        hook_case(
            "setsid-daemon",
            "setsid sh -c 'echo > ready; exec sleep 4713' </dev/null >/dev/null 2>&1 & "
            "while [ ! -e ready ]; do sleep 0.01; done; exit 0",
            {"leftover_processes": 1},
        ),
        # SIGUSR1 opened Node's inspector on 127.0.0.1:9229 (240D), to any local process.
        hook_case(
            "usr1-the-runner",
            "kill -USR1 $PPID; sleep 0.5; grep -qi ':240D 00000000:0000 0A' /proc/net/tcp && "
            "{ echo inspector listening >&2; exit 2; }; exit 0",
            {},
        ),
        hook_case("after", "exit 0", {}),
    ]
    vectors = write_hooks_file(tmp_path, cases)
    out = tmp_path / "results.json"
    # The harness runs as an ordinary process (under sh, the init) of a namespace of
    # the test's: a kill -9 -1 that escaped its platform's namespace ends the harness
    # (rc 137, no --output) and nothing outside the test's namespace.
    prefix = namespace_prefix()
    assert prefix is not None
    harness = [sys.executable, "-m", "runners", *run_args(vectors, out)]
    done = subprocess.run(
        [*prefix, "/bin/sh", "-c", '"$@"; exit $?', "sh", *harness],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    results = statuses(out)
    for platform in PLATFORMS:
        for case in cases:
            result = results[platform, case["id"]]
            assert result["status"] == "pass", (platform, case["id"], result)
    for argument in ("4711", "4712", "4713"):
        assert alive_with_argument(argument) == []


SPAWN_OWN_GROUP = (
    "import subprocess as s; n = s.DEVNULL; "
    "s.Popen(['sleep', '{seconds}'], process_group=0, stdin=n, stdout=n, stderr=n)"
)


@pytest.mark.parametrize("namespaces", [True, False], ids=["namespaces", "no-namespaces"])
def test_every_platform_counts_and_ends_what_a_hook_leaves(
    tmp_path: Path, namespaces: bool
) -> None:
    # A process in a group of its own, working in the case root, outlives HOOK-10's
    # group kill: a leftover, counted and killed, with namespaces or without.
    if namespaces and namespace_prefix() is None:
        pytest.skip(NO_NAMESPACES)
    seconds = "4717" if namespaces else "4718"
    spawn = SPAWN_OWN_GROUP.format(seconds=seconds)
    left = hook_case("left", f'{sys.executable} -c "{spawn}"', {"leftover_processes": 1})
    vectors = write_hooks_file(tmp_path, [left])
    out = tmp_path / "results.json"
    env = {**os.environ, isolation.NO_NAMESPACES_ENV: "" if namespaces else "1"}
    command = [sys.executable, "-m", "runners", *run_args(vectors, out)]
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=300, check=False)
    for platform in PLATFORMS:
        result = statuses(out)[platform, "left"]
        assert result["status"] == "pass", (platform, result)
    assert alive_with_argument(seconds) == []


def test_a_forged_pids_file_makes_no_platform_kill_that_pid(tmp_path: Path) -> None:
    # The leftover count came from the *.pids files under the case root: any pid a
    # hook wrote there was SIGKILLed. It comes from the namespace or session now.
    victim = subprocess.Popen(["sleep", "300"])
    try:
        forge = f"echo {victim.pid} > {{root}}/v.pids; exit 0"
        vectors = write_hooks_file(tmp_path, [hook_case("forged-pids", forge, {})])
        out = tmp_path / "results.json"
        assert main(run_args(vectors, out)) == 0
        time.sleep(0.2)  # a SIGKILL, had one been sent, has been delivered
        assert victim.poll() is None, "the forged pid was killed"
    finally:
        victim.kill()
        victim.wait()


def test_a_layer_without_a_namespace_counts_what_works_in_the_case_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Driven directly (as the native vector runners drive it, or confined without
    # namespaces), a layer counts (and kills) the processes working in the case root:
    # not the pids a hook wrote (another session's process, the caller itself).
    from impl_python.conformance import hooks

    monkeypatch.delenv(isolation.ISOLATION_ENV, raising=False)
    elsewhere = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        forged = f"echo {elsewhere.pid} {os.getpid()} {os.getsid(0)} > v.pids"
        # A sleep in a group of its own, working in the case root: HOOK-10's group
        # kill misses it, the count does not.
        spawn = (
            "import subprocess as s; n = s.DEVNULL; "
            "p = s.Popen(['sleep', '4716'], process_group=0, stdin=n, stdout=n, stderr=n); "
            "open('job.pids', 'w').write(str(p.pid))"
        )
        job = f'{sys.executable} -c "{spawn}"'
        case = hook_case("x", f"{forged}; {job}; exit 0", {})["input"]
        output = hooks.run(case)
        assert output["leftover_processes"] == 1, output
        deadline = time.monotonic() + 5  # the SIGKILL sent, its delivery is the kernel's
        while alive_with_argument("4716") and time.monotonic() < deadline:
            time.sleep(0.01)
        assert elsewhere.poll() is None and alive_with_argument("4716") == []
    finally:
        elsewhere.kill()
        elsewhere.wait()


# -- memory and temporary folders ----------------------------------------------------


def test_a_hook_cannot_map_more_than_the_memory_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 3 GiB of address space, never touched (no memory is used): refused under 2 GiB
    # (the least Node starts its worker threads under with room to spare).
    monkeypatch.setenv(isolation.MEMORY_LIMIT_ENV, "2048")
    grab = f"{sys.executable} -I -S -c 'import mmap; mmap.mmap(-1, 3 << 30)' 2>/dev/null"
    refused = f"{grab} || {{ echo refused >&2; exit 2; }}"
    vectors = write_hooks_file(tmp_path, [hook_case("map-3-gib", refused, denied("refused"))])
    out = tmp_path / "results.json"
    main(run_args(vectors, out))
    for platform in PLATFORMS:
        result = statuses(out)[platform, "map-3-gib"]
        assert result["status"] == "pass", (platform, result)


@pytest.mark.parametrize("tool", ["prlimit", "python"])
def test_both_ways_of_limiting_memory_limit_it(tool: str) -> None:
    if tool == "prlimit" and shutil.which("prlimit") is None:
        pytest.skip("no util-linux prlimit on PATH")
    # ``python``: a prlimit that is not there, so the Python fallback runs.
    prefix = isolation.limit_prefix(2 << 30, prlimit=None if tool == "prlimit" else "")
    assert (prefix[0] == shutil.which("prlimit")) == (tool == "prlimit")
    grab = [sys.executable, "-I", "-S", "-c", "import mmap; mmap.mmap(-1, 3 << 30)"]
    assert subprocess.run(grab, capture_output=True, check=False).returncode == 0
    assert subprocess.run([*prefix, *grab], capture_output=True, check=False).returncode == 1


def test_a_timed_out_case_leaves_no_folder(tmp_path: Path) -> None:
    # The case outlives --case-timeout: its worker is killed with the case root in
    # place, and the worker's temporary folder goes with it.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    slow = hook_case("slow", "sleep 4714", {}, timeout_ms=60000)
    vectors = write_hooks_file(tmp_path, [slow, hook_case("after", "exit 0", {})])
    out = tmp_path / "results.json"
    command = [
        sys.executable, "-m", "runners", *run_args(vectors, out), "--case-timeout", "1",
    ]  # fmt: skip
    env = {**os.environ, "TMPDIR": str(scratch)}
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=300, check=False)
    results = statuses(out)
    for platform in PLATFORMS:
        assert results[platform, "slow"]["status"] == "error"
        assert results[platform, "after"]["status"] == "pass"
    assert sorted(p.name for p in scratch.iterdir()) == []
    assert alive_with_argument("4714") == []


def test_only_stale_worker_folders_are_swept(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    old = time.time() - 3600

    def folder(name: str, *, mtime: float = old) -> Path:
        path = tmp_path / name
        (path / "hanzo-hooks-x").mkdir(parents=True)
        os.utime(path, (mtime, mtime))
        return path

    ns = os.readlink("/proc/self/ns/pid").strip("pid:[]")
    stale = folder(f"hanzo-conformance-{ns}-{dead.pid}-abc")
    live = folder(f"hanzo-conformance-{ns}-{os.getppid()}-abc")  # its harness still runs
    mine = folder(f"hanzo-conformance-{ns}-{os.getpid()}-abc")  # this process's own
    new = folder(f"hanzo-conformance-{ns}-{dead.pid}-new", mtime=time.time() + 60)
    # A harness in another PID namespace: its pid means nothing here.
    elsewhere = folder(f"hanzo-conformance-{int(ns) + 1}-{dead.pid}-abc")
    other = folder(f"not-hanzo-{ns}-{dead.pid}-abc")
    link = tmp_path / f"hanzo-conformance-{ns}-{dead.pid}-link"
    link.symlink_to(other)
    assert sweep_stale(str(tmp_path)) == (str(stale),)
    assert not stale.exists()
    assert all(p.exists() for p in (live, mine, new, elsewhere, other, link))


def test_a_run_sweeps_what_a_killed_run_left(tmp_path: Path) -> None:
    # A harness killed by SIGKILL leaves its workers' folders; the next run removes them.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    vectors = write_hooks_file(tmp_path, [hook_case("slow", "sleep 4715", {}, timeout_ms=60000)])
    env = {**os.environ, "TMPDIR": str(scratch)}
    command = [sys.executable, "-m", "runners", *run_args(vectors, tmp_path / "r.json")]
    killed = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not list(scratch.glob("hanzo-conformance-*/hanzo-hooks-*")):
        assert time.monotonic() < deadline and killed.poll() is None
        time.sleep(0.05)
    killed.kill()
    killed.wait()
    left = list(scratch.iterdir())
    assert left
    old = time.time() - 60
    for folder in left:
        os.utime(folder, (old, old))
    plain = write_hooks_file(tmp_path, [hook_case("plain", "exit 0", {})])
    command = [sys.executable, "-m", "runners", *run_args(plain, tmp_path / "r2.json", "python")]
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=300, check=True)
    assert list(scratch.iterdir()) == []
    for pid in alive_with_argument("4715"):  # without namespaces the hooks outlive a SIGKILL
        os.kill(pid, 9)


# -- the report says when there were no namespaces -----------------------------------


def test_a_run_without_namespaces_says_so_once(tmp_path: Path) -> None:
    vectors = write_hooks_file(tmp_path, [hook_case("plain", "exit 0", {})])
    notes = {}
    for label, value in (("without", "1"), ("with", "")):
        out = tmp_path / f"results-{label}.json"
        env = {**os.environ, isolation.NO_NAMESPACES_ENV: value}
        command = [sys.executable, "-m", "runners", *run_args(vectors, out, "python")]
        done = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=True
        )
        run = json.loads(out.read_text(encoding="utf-8"))["summary"]["run"]
        notes[label] = (run.get("isolation"), done.stdout.count("isolation: "))
    note, lines = notes["without"]
    assert note is not None and "no PID namespaces" in note and lines == 1
    if namespace_prefix() is not None:
        assert notes["with"] == (None, 0)


LOCKED_TREE = """
import os, sys
sys.path.insert(0, os.getcwd())
from pathlib import Path
from adapters.isolation import remove_tree
base = Path(sys.argv[1])
top = base / "hanzo-conformance-x"
locked = top / "root" / "locked"
locked.mkdir(parents=True)
(locked / "file").write_text("x")
(base / "outside").mkdir()
(base / "outside" / "kept").write_text("x")
(top / "root" / "link").symlink_to(base / "outside")
locked.chmod(0)
(top / "root").chmod(0o500)
remove_tree(str(top))
print(top.exists(), (base / "outside" / "kept").exists())
"""


def test_a_worker_folder_a_hook_locked_is_removed_all_the_same(tmp_path: Path) -> None:
    # chmod 000 on a folder stops its owner (not root) from emptying it: run as an
    # ordinary user (nobody, through setpriv, when this is root).
    drop: list[str] = []
    base = tmp_path
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("root, and no setpriv to run as an ordinary user")
        drop = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        base = Path(tempfile.mkdtemp())
        shutil.chown(base, "nobody")
    try:
        done = subprocess.run(
            [*drop, sys.executable, "-c", LOCKED_TREE, str(base)],
            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.stdout.split() == ["False", "True"], done.stderr
    finally:
        if base != tmp_path:
            subprocess.run(["chmod", "-R", "u+rwx", str(base)], check=False)
            shutil.rmtree(base, ignore_errors=True)


def test_removing_a_worker_folder_never_changes_the_folder_that_holds_it(tmp_path: Path) -> None:
    # A worker folder removed twice (or by the worker itself) made the retry chmod its
    # parent, the system's temporary folder, to 0700: every other user lost /tmp.
    holder = tmp_path / "tmp"
    holder.mkdir()
    holder.chmod(0o1777)
    gone = holder / "hanzo-conformance-gone"
    remove_tree(str(gone))
    gone.mkdir()
    (gone / "file").write_text("x")
    remove_tree(str(gone))
    remove_tree(str(gone))
    assert not gone.exists()
    assert stat.S_IMODE(holder.stat().st_mode) == 0o1777


def test_merged_shards_keep_the_note_of_where_they_ran(tmp_path: Path) -> None:
    # The note says where the cases ran: a merge (here, with namespaces, or not) keeps
    # the shards' note and adds none of its own.
    cases = [hook_case(f"plain-{i}", "exit 0", {}) for i in range(4)]
    vectors = write_hooks_file(tmp_path, cases)
    shards = []
    for index in (1, 2):
        out = tmp_path / f"shard-{index}.json"
        env = {**os.environ, isolation.NO_NAMESPACES_ENV: "1"}
        argv = [*run_args(vectors, out, "python"), "--shard", f"{index}/2"]
        command = [sys.executable, "-m", "runners", *argv]
        subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=300, check=True)
        shards.append(str(out))
    merged = tmp_path / "merged.json"
    command = [
        sys.executable, "-m", "runners", "merge", *shards, "--output", str(merged),
        "--no-default-vectors", "--vectors", str(vectors),
    ]  # fmt: skip
    env = {**os.environ, isolation.NO_NAMESPACES_ENV: ""}
    subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=300, check=True)
    note = json.loads(merged.read_text(encoding="utf-8"))["summary"]["run"].get("isolation")
    assert note is not None and "no PID namespaces" in note

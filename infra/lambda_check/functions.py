"""A function of the template, running: one child process (the execution environment) that
imports the handler from its read-only bundle once and then takes invocations, each within
the function's timeout, its memory read after each. A child that timed out is killed and the
next invocation starts a fresh one, as Lambda starts a fresh environment.

The child's environment is the template's variables for the function plus what the Lambda
service itself sets (region, function name, memory, task root, handler, credentials, trace
id) and one stand-in: AWS_ENDPOINT_URL, where AWS's endpoints are moto's server. Nothing of
the development venv: a bare Python 3.11 (-I -S) whose only packages are the bundle's. Run
as root, the child gets a mount namespace of its own (the bundle read-only at /var/task, the
bootstrap at /var/runtime, a private /tmp of the function's ephemeral storage) and drops to the
unprivileged user `nobody`: only /tmp is the function's to write. Not root, the check runs the child
as the user it is (the bits hold) on the machine's /tmp."""

from __future__ import annotations

import ctypes
import json
import os
import pwd
import select
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from infra.lambda_check.stand_in import CREDENTIALS, StandIn
from infra.lambda_check.template import ACCOUNT, REGION, Function

RUNTIME = Path(__file__).with_name("runtime.py")
UNPRIVILEGED = "nobody"
INIT_LIMIT_S = 10  # Lambda's init phase of an on-demand function


class InvocationFailed(AssertionError):
    pass


@dataclass(frozen=True)
class Invocation:
    result: Any
    error: dict[str, Any] | None
    peak_memory_mb: float


def _drop_privileges() -> None:
    user = pwd.getpwnam(UNPRIVILEGED)
    os.setgroups([])
    os.setgid(user.pw_gid)
    os.setuid(user.pw_uid)


CLONE_NEWNS, MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x00020000, 1, 32, 4096, 0x4000, 1 << 18
TASK_ROOT, RUNTIME_DIR = Path("/var/task"), Path("/var/runtime")  # where Lambda has them


def _isolated(task_root: Path, tmp_mb: int) -> Any:
    """In the child, before the interpreter starts (root only): a mount namespace of its own in
    which the bundle is /var/task, read-only, the bootstrap is in /var/runtime, and /tmp is a
    fresh tmpfs of the function's ephemeral storage (Lambda's /tmp is the function's own and empty
    at a cold start; the machine's /tmp, where a clone of this repository may live, is hidden
    from it); then the unprivileged user."""

    def prepare() -> None:
        libc = ctypes.CDLL(None, use_errno=True)

        def mount(source: Path | str, target: Path | str, kind: str | None, flags: int, options: str = "") -> None:
            encoded = (str(source).encode(), str(target).encode(), kind and kind.encode())
            if libc.mount(*encoded, flags, options.encode() or None) != 0:
                raise OSError(ctypes.get_errno(), f"mount {source} on {target}")

        if libc.unshare(CLONE_NEWNS) != 0:
            raise OSError(ctypes.get_errno(), "unshare: the check needs a mount namespace of its own")
        mount("none", "/", None, MS_REC | MS_PRIVATE)
        for source, target in ((task_root, TASK_ROOT), (RUNTIME.parent, RUNTIME_DIR)):
            mount(source, target, None, MS_BIND)
            mount(source, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY)
        mount("tmpfs", "/tmp", "tmpfs", 0, f"size={tmp_mb}m,mode=1777")
        _drop_privileges()

    return prepare


def _as_root() -> bool:
    return os.geteuid() == 0


@cache
def interpreter() -> str:
    """A Python 3.11 the function's user may run, started bare."""
    candidates = [getattr(sys, "_base_executable", sys.executable), "/usr/bin/python3.11", "/usr/local/bin/python3.11"]
    for candidate in candidates:
        if not Path(candidate).exists():
            continue
        try:
            probe = subprocess.run(
                [candidate, "-I", "-S", "-c", "import sys; print(sys.version_info[:2] == (3, 11))"],
                capture_output=True,
                text=True,
                preexec_fn=_drop_privileges if _as_root() else None,
            )
        except PermissionError:
            continue
        if probe.stdout.strip() == "True":
            return candidate
    raise SystemExit(f"no Python 3.11 that user {UNPRIVILEGED} can run among {candidates}")


class Running:
    def __init__(self, function: Function, task_root: Path, stand_in: StandIn, logs: Path) -> None:
        self.function = function
        self.task_root = task_root
        # what the function sees: as root, its own mounts at Lambda's paths (_isolated); else the real ones
        isolated = _as_root()
        if isolated:
            for mountpoint in (TASK_ROOT, RUNTIME_DIR):
                mountpoint.mkdir(parents=True, exist_ok=True)  # empty; mounted on only inside the child's namespace
        self.task_root_seen = TASK_ROOT if isolated else task_root
        self.runtime_seen = RUNTIME_DIR / RUNTIME.name if isolated else RUNTIME
        self.physical_name = stand_in.physical(function.name, None)
        self.arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.physical_name}"
        self.endpoint = stand_in.endpoint
        self.log_path = logs / f"{function.name}.log"  # the function's stdout and stderr
        self._process: subprocess.Popen[str] | None = None
        self._answers: Any = None
        self.init_seconds: float | None = None
        self.peak_memory_mb = 0.0
        self.invocations = 0

    def environment(self) -> dict[str, str]:
        function = self.function
        return {
            **function.environment,
            "AWS_REGION": REGION,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_LAMBDA_FUNCTION_NAME": self.physical_name,
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(function.memory_mb),
            "AWS_LAMBDA_LOG_GROUP_NAME": f"/aws/lambda/{self.physical_name}",
            "AWS_LAMBDA_LOG_STREAM_NAME": f"{time.strftime('%Y/%m/%d')}/[$LATEST]lambdacheck",
            "AWS_LAMBDA_INITIALIZATION_TYPE": "on-demand",
            "AWS_EXECUTION_ENV": f"AWS_Lambda_{function.runtime}",
            "LAMBDA_TASK_ROOT": str(self.task_root_seen),
            "LAMBDA_RUNTIME_DIR": "/var/runtime",
            "_HANDLER": function.handler,
            "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
            "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
            "TZ": ":UTC",
            "LANG": "en_US.UTF-8",
            "PATH": "/usr/local/bin:/usr/bin/:/bin",
            **CREDENTIALS,
            "AWS_SESSION_TOKEN": "lambda-check",
            "AWS_ENDPOINT_URL": self.endpoint,  # the stand-in for AWS: the one variable Lambda would not set
        }

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        if self.function.runtime != "python3.11":
            raise InvocationFailed(f"{self.function.name}: runtime {self.function.runtime}, the check runs python3.11")
        read_answers, write_answers = os.pipe()
        log = self.log_path.open("a", encoding="utf-8")
        self._process = subprocess.Popen(
            [interpreter(), "-I", "-S", str(self.runtime_seen), str(write_answers)],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=log,
            env=self.environment(),
            cwd="/",
            text=True,
            pass_fds=(write_answers,),
            preexec_fn=_isolated(self.task_root, self.function.tmp_mb) if _as_root() else None,
        )
        os.close(write_answers)
        log.close()
        self._answers = os.fdopen(read_answers, "r", encoding="utf-8")
        answer = self._read(INIT_LIMIT_S + self.function.timeout_s, "init")
        if "initError" in answer:
            self.stop()
            raise InvocationFailed(f"{self.function.name} did not start: {_describe(answer['initError'])}")
        self.init_seconds = answer["initSeconds"]
        self._check_memory(answer)

    def invoke(self, event: dict[str, Any]) -> Invocation:
        if self._process is None or self._process.poll() is not None:
            self.start()
        assert self._process is not None and self._process.stdin is not None
        started = time.time()
        request = {
            "event": event,
            "requestId": str(uuid.uuid4()),
            "traceId": f"Root=1-{int(started):08x}-{uuid.uuid4().hex[:24]};Parent={uuid.uuid4().hex[:16]};Sampled=1",
            "deadlineMs": started * 1000 + self.function.timeout_s * 1000,
            "invokedArn": self.arn,
        }
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        answer = self._read(self.function.timeout_s, "invocation")
        self.invocations += 1
        self._check_memory(answer)
        return Invocation(answer.get("result"), answer.get("error"), answer["peakMemoryMb"])

    def loaded_files(self) -> list[str]:
        """The files of the bundle this environment has imported so far (relative to the task root)."""
        if self._process is None or self._process.poll() is not None:
            return []
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps({"report": "modules"}) + "\n")
        self._process.stdin.flush()
        answer = self._read(self.function.timeout_s, "report")
        return [str(Path(f).relative_to(self.task_root_seen)) for f in answer["modules"]]

    def call(self, event: dict[str, Any]) -> Any:
        """The handler's result; an error answer fails the check with the function's log."""
        invocation = self.invoke(event)
        if invocation.error:
            raise InvocationFailed(f"{self.function.name} failed: {_describe(invocation.error)}\n{self.log_tail()}")
        return invocation.result

    def _read(self, limit_s: float, phase: str) -> dict[str, Any]:
        ready, _, _ = select.select([self._answers], [], [], limit_s)
        line = self._answers.readline() if ready else ""
        if not line:
            exited = None
            if ready and self._process:  # the answers ended: the process is ending
                exited = self._process.wait(timeout=10)
            self.stop()
            what = f"exited with {exited}" if exited is not None else f"timed out after {limit_s} s"
            raise InvocationFailed(f"{self.function.name}: {phase} {what}\n{self.log_tail()}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def _check_memory(self, answer: dict[str, Any]) -> None:
        self.peak_memory_mb = max(self.peak_memory_mb, answer["peakMemoryMb"])
        if answer["peakMemoryMb"] > self.function.memory_mb:
            self.stop()
            raise InvocationFailed(
                f"{self.function.name} used {answer['peakMemoryMb']:.0f} MB of its {self.function.memory_mb} MB"
            )

    def summary(self) -> str:
        init = f"{self.init_seconds:.2f} s" if self.init_seconds is not None else "not started"
        return (
            f"{self.function.name:16} {self.function.handler:22} init {init:>8}, {self.invocations:3} invocations, "
            f"peak {self.peak_memory_mb:5.0f} MB of {self.function.memory_mb} MB"
        )

    def log_tail(self, lines: int = 40) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        if self._process is not None:
            if self._process.poll() is None:
                self._process.kill()
            self._process.wait()
            if self._process.stdin:
                self._process.stdin.close()
        if self._answers is not None:
            self._answers.close()
        self._process, self._answers = None, None


def _describe(error: dict[str, Any]) -> str:
    trace = "".join(error.get("stackTrace", []))[-3000:]
    return f"{error.get('errorType')}: {error.get('errorMessage')}\n{trace}"

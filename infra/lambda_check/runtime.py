"""Lambda's Python bootstrap in miniature, run as a script by a bare interpreter
(`python3.11 -I -S runtime.py`: no site-packages, no PYTHON* variables, nothing of the
development venv). It imports only the standard library.

As the Python 3.11 runtime does: the task root (LAMBDA_TASK_ROOT) first on sys.path and the
working directory; the handler (_HANDLER, "module.attribute") imported once, at init; then
one invocation per request, each with _X_AMZN_TRACE_ID set and a context object of the
runtime's attributes; the result must be JSON (the runtime's Runtime.MarshalError
otherwise). Requests arrive as JSON lines on stdin; answers leave as JSON lines on the file
descriptor named by the first argument, so the function's own stdout and stderr stay its log, as in Lambda. Each
answer carries the process's peak resident memory (VmHWM) so far."""

import importlib
import json
import os
import sys
import time
import traceback


class Context:
    """The attributes of awslambdaric's LambdaContext that handlers read."""

    def __init__(self, request_id, deadline_ms, invoked_arn):
        self.aws_request_id = request_id
        self.function_name = os.environ["AWS_LAMBDA_FUNCTION_NAME"]
        self.function_version = os.environ["AWS_LAMBDA_FUNCTION_VERSION"]
        self.memory_limit_in_mb = os.environ["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"]
        self.log_group_name = os.environ["AWS_LAMBDA_LOG_GROUP_NAME"]
        self.log_stream_name = os.environ["AWS_LAMBDA_LOG_STREAM_NAME"]
        self.invoked_function_arn = invoked_arn
        self.identity = None
        self.client_context = None
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self):
        return max(0, int(self._deadline_ms - time.time() * 1000))


def peak_memory_mb():
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def error(kind, exception):
    return {
        "errorType": kind or type(exception).__name__,
        "errorMessage": str(exception),
        "stackTrace": traceback.format_exception(exception),
    }


def main():
    answers = os.fdopen(int(sys.argv[1]), "w", encoding="utf-8")

    def answer(payload):
        payload["peakMemoryMb"] = peak_memory_mb()
        answers.write(json.dumps(payload) + "\n")
        answers.flush()

    task_root = os.environ["LAMBDA_TASK_ROOT"]
    sys.path.insert(0, task_root)
    os.chdir(task_root)
    module_name, _, attribute = os.environ["_HANDLER"].rpartition(".")
    started = time.monotonic()
    try:
        module = importlib.import_module(module_name)
    except Exception as exception:  # noqa: BLE001 - the runtime answers any import failure as Runtime.ImportModuleError
        answer({"initError": error("Runtime.ImportModuleError", exception)})
        return
    handler = getattr(module, attribute, None)
    if not callable(handler):
        answer({"initError": error("Runtime.HandlerNotFound", AttributeError(f"{module_name} has no {attribute}"))})
        return
    answer({"ready": True, "initSeconds": time.monotonic() - started})
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("report") == "modules":  # the check's question, not an invocation
            files = [getattr(m, "__file__", None) for m in list(sys.modules.values())]
            answer({"modules": sorted(f for f in files if f and f.startswith(task_root))})
            continue
        os.environ["_X_AMZN_TRACE_ID"] = request["traceId"]
        context = Context(request["requestId"], request["deadlineMs"], request["invokedArn"])
        try:
            result = handler(request["event"], context)
        except Exception as exception:  # noqa: BLE001 - as the runtime: any failure is the invocation's error answer
            answer({"error": error(None, exception)})
            continue
        try:
            answer({"result": json.loads(json.dumps(result))})
        except (TypeError, ValueError) as exception:
            answer({"error": error("Runtime.MarshalError", exception)})


if __name__ == "__main__":
    main()

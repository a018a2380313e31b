"""The REST function's Chalice application: one route per registered operation, plus
catch-alls that answer unknown names with problem+json (version 2 and the deprecated
version 1), and the workers: the table's stream handler, webhook deliveries, uploads, exports,
sandbox jobs, the request log's writer.
The console (web pages under /console) is served here too. The MCP server is a function of
its own (mcp_app.py). Everything else lives in chalicelib/."""

from chalice import Chalice  # type: ignore[attr-defined]

from chalicelib import config, http, observability, resources, v1
from chalicelib.console import app as console
from chalicelib.events import stream
from chalicelib.log import logger
from chalicelib.uploads import register as upload_worker

app = Chalice(app_name="propertymanagement")
app.api.binary_types = ["multipart/form-data", "application/octet-stream"]
# Every event type (HTTP, stream, queue, schedule): logger keys of the invocation, one X-Ray
# subsegment. Metrics need no flush here: each is written when it happens (observability.emit).
app.register_middleware(observability.middleware, "all")
app.register_middleware(http.chalice_refusals_as_problems, "http")

resources.load_all()
upload_worker.require_registry()  # on_upload's cold start fails here, not each message, should the above go
http.register_routes(app)
v1.register(app)
console.register(app)

# The deployment's merge template points this at the table's real stream; locally the
# stream poller (chalicelib/local/stream_poller.py) calls the same function.
_STREAM_ARN = config.table_stream_arn()


@app.on_dynamodb_record(stream_arn=_STREAM_ARN, batch_size=100, name="on_table_change")
def on_table_change(event):  # type: ignore[no-untyped-def]
    return stream.handle_event(event.to_dict())


# The stream handler queues each webhook delivery on this FIFO queue (events/delivery_queue.py);
# the worker sends them, groups in parallel, each group in order, and keeps what waits for a
# retry. Placeholder ARN as for the upload queue below: the merge template points it at the
# stack's queue; locally the queue poller calls the same function.
_DELIVERY_QUEUE_ARN = config.delivery_queue_arn()


@app.on_sqs_message(queue_arn=_DELIVERY_QUEUE_ARN, batch_size=10, name="deliver_webhooks")
def deliver_webhooks(event):  # type: ignore[no-untyped-def]
    from chalicelib.events.delivery_worker import (  # cold start: the delivery worker (and Powertools'
        # event data classes, ~75 ms) loads on the first delivery batch
        handle_event,
    )

    return handle_event(event.to_dict())


# S3 notifies this queue of every stored upload (the merge template wires bucket -> queue ->
# function); locally the queue poller (chalicelib/local/queue_poller.py) calls the same function.
# The ARN is a placeholder that `chalice package` writes and the merge template replaces with a
# reference to the stack's queue (infra/resources.py); a queue *name* would render as Fn::Sub,
# which a merge cannot replace.
_UPLOAD_QUEUE_ARN = config.upload_queue_arn()


@app.on_sqs_message(queue_arn=_UPLOAD_QUEUE_ARN, batch_size=upload_worker.BATCH_SIZE, name="on_upload")
def on_upload(event):  # type: ignore[no-untyped-def]
    return upload_worker.handle_event(event.to_dict())


# exports.create queues each export here; the worker writes the tenant's file to S3 (one message a
# batch: an export may take minutes). Placeholder ARN as above.
_EXPORT_QUEUE_ARN = config.export_queue_arn()


@app.on_sqs_message(queue_arn=_EXPORT_QUEUE_ARN, batch_size=1, name="run_exports")
def run_exports(event):  # type: ignore[no-untyped-def]
    from chalicelib.exports.worker import handle_event  # cold start: loads with the first export

    return handle_event(event.to_dict())


# The console queues a sandbox's planting or reset here (sandbox/jobs.py); the worker runs it through
# the registry's operations in this process, loaded above (resources.load_all()): one job a batch, as
# a demo company takes most of a minute. Placeholder ARN as above.
_SANDBOX_QUEUE_ARN = config.sandbox_queue_arn()


@app.on_sqs_message(queue_arn=_SANDBOX_QUEUE_ARN, batch_size=1, name="run_sandboxes")
def run_sandboxes(event):  # type: ignore[no-untyped-def]
    from chalicelib.sandbox.worker import handle_event  # cold start: loads with the first sandbox job

    return handle_event(event.to_dict())


# The HTTP functions print each request's log entry; a CloudWatch Logs subscription on their log
# groups (infra/resources.py) invokes this with the lines in batches, which it stores 25 to a
# write (store/requests.py). Locally the entries are written at once and nothing calls this.
@app.lambda_function(name="write_request_logs")
def write_request_logs(event, context):  # type: ignore[no-untyped-def]
    from chalicelib.request_log_worker import handle_event  # cold start: loads with its first batch

    return handle_event(event)


@app.schedule("rate(1 day)", name="sweep_uploads")
def sweep_uploads(event):  # type: ignore[no-untyped-def]
    """Reports upload files no entity points at, and entities whose file is missing."""
    from chalicelib.uploads.sweep import (  # cold start: the daily sweep (and argparse, ~2 ms) loads on its schedule
        sweep,
    )

    report = sweep().as_dict()
    log = logger.error if report["missingFiles"] or report["orphanFiles"] else logger.info
    log("upload sweep", extra=report)

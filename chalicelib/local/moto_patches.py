"""Changes to moto for the local stack: TransactWriteItems without a deep copy of the
whole table, SQS queue bookkeeping that does not re-count the queue per message, table
walks that survive concurrent writes, a server that finds a request's service once per
host instead of listing its own package directory on every request, and reads of a list
page that no longer copy, convert and re-serialise every item several times over (a page of
100 contacts out of 1,000 took 522 ms on `make serve`, 89 ms with these).

moto 5.2 snapshots every table a transaction touches (copy.deepcopy) so it can roll back,
which makes each transaction cost time in proportion to the table: a tenant of 10,000
units took minutes to fill. DynamoDB's own semantics need no snapshot: it checks every
condition first and writes only when all hold. This replacement does exactly that, so a
refused transaction changes nothing (and leaves no stream record), and an accepted one
applies its writes in order. Only used by the embedded stack; AWS is not affected.

Writes also take one lock (WRITE_LOCK): moto checks a condition and then writes without
one, so two concurrent conditional writes (or transactions) could both pass where DynamoDB
lets only one; and the state snapshot (stack.export_state) holds it while it reads the
table, so a snapshot never holds half of a transaction."""

from __future__ import annotations

import bisect
import calendar
import contextlib
import copy
import datetime as dt
import functools
import json
import string
import threading
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

import moto.core.responses as moto_responses
from moto.core.responses import ActionResult
from moto.core.utils import unix_time, unix_time_millis
from moto.dynamodb.comparisons import ConditionExpressionParser, OpDefault, get_filter_expression
from moto.dynamodb.exceptions import (
    ItemSizeTooLarge,
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
    TransactWriteSingleOpException,
)
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import RESULT_SIZE_LIMIT, Table
from moto.dynamodb.models.utilities import bytesize
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]
from moto.dynamodb.responses import DynamoHandler, DynamoResult
from moto.moto_api._internal.moto_random import MotoRandom
from moto.moto_server.werkzeug_app import DomainDispatcherApplication
from moto.s3.utils import _VersionedKeyStore
from moto.sqs.models import Message, Queue, SQSBackend

from chalicelib.local import moto_index, pinned

_applied = False
WRITE_LOCK = threading.RLock()
# Set after every table write, whichever process sent it: the local stream poller sleeps on it.
TABLE_WRITTEN = threading.Event()


@contextlib.contextmanager
def _writing() -> Iterator[None]:
    """A write under WRITE_LOCK; the stream poller is woken after it, whether it wrote or failed."""
    with WRITE_LOCK:
        try:
            yield
        finally:
            TABLE_WRITTEN.set()


def apply() -> None:
    global _applied
    if _applied:
        return
    pinned.check()  # on another moto or botocore these patches may silently not apply

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        if len(transact_items) > 100:
            raise TooManyTransactionsException()
        seen: set[tuple[str, str]] = set()
        planned: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
        errors: list[Any] = []
        for entry in transact_items:
            if len(entry) > 1:
                raise TransactWriteSingleOpException
            op_type, op = next(iter(entry.items()))
            if op_type not in {"ConditionCheck", "Put", "Delete", "Update"}:
                raise ValueError("Unsupported transaction operation")
            table = self.get_table(op["TableName"])
            if op_type == "Put":
                key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
                if table.range_key_attr is not None:
                    key[table.range_key_attr] = op["Item"][table.range_key_attr]
            else:
                key = op["Key"]
            marker = (str(op["TableName"]), str(dict(sorted(key.items()))))
            if marker in seen:
                raise MultipleTransactionsException()
            seen.add(marker)
            current = self.get_item(op["TableName"], key)
            condition = op.get("ConditionExpression")
            if condition is not None:
                check = get_filter_expression(
                    condition, op.get("ExpressionAttributeNames"), op.get("ExpressionAttributeValues")
                )
                if not check.expr(current):
                    old = (
                        current.to_json()["Attributes"]
                        if current and op.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
                        else None
                    )
                    errors.append(("ConditionalCheckFailed", "The conditional request failed", old))
                    continue
            errors.append((None, None, None))
            planned.append((op_type, op, key))
        if any(code is not None for code, _, _ in errors):
            raise TransactionCanceledException(errors)
        for op_type, op, key in planned:  # every condition held: write, in order
            names = op.get("ExpressionAttributeNames")
            values = op.get("ExpressionAttributeValues")
            if op_type == "Put":
                self.put_item(
                    op["TableName"], op["Item"], expression_attribute_names=names, expression_attribute_values=values
                )
            elif op_type == "Delete":
                self.delete_item(
                    op["TableName"], key, expression_attribute_names=names, expression_attribute_values=values
                )
            elif op_type == "Update":
                self.update_item(
                    op["TableName"],
                    key,
                    update_expression=op["UpdateExpression"],
                    expression_attribute_names=names,
                    expression_attribute_values=values,
                )

    # moto: DynamoDBBackend.transact_write_items deep-copies every table the transaction touches
    # (copy.deepcopy, to roll back), so a transaction cost time in proportion to the table; and it
    # checks the conditions and writes without a lock (the module's docstring).
    def locked_transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        with _writing():
            transact_write_items(self, transact_items=transact_items)

    DynamoDBBackend.transact_write_items = locked_transact_write_items  # type: ignore[method-assign]
    _patch_writes()
    _patch_sqs()
    _patch_table_walk()
    _patch_projection()
    _patch_item_answers()
    _patch_dispatch()
    _patch_bucket_listing()
    _patch_request_overhead()
    _patch_item_size()
    _patch_expression_parses()
    _applied = True


def _patch_writes() -> None:
    """moto's DynamoDBBackend.put_item, update_item and delete_item check an item's condition and
    then write it without a lock, so two concurrent conditional writes could both pass where
    DynamoDB lets only one: each takes WRITE_LOCK (re-entrant: a transaction's writes take it
    again) and wakes the stream poller (TABLE_WRITTEN). A put or an update also points the local
    index of the global secondary indexes at the item (moto_index), which moto finds by walking
    the whole table on every Query of an index."""
    put_item, update_item, delete_item = (
        DynamoDBBackend.put_item,
        DynamoDBBackend.update_item,
        DynamoDBBackend.delete_item,
    )
    handle_update_item, describe_table = DynamoHandler.update_item, DynamoDBBackend.describe_table

    def locked_put_item(
        self: Any,
        table_name: str,
        item_attrs: dict[str, Any],
        expected: dict[str, Any] | None = None,
        condition_expression: str | None = None,
        expression_attribute_names: dict[str, Any] | None = None,
        expression_attribute_values: dict[str, Any] | None = None,
        overwrite: bool = False,
        return_values_on_condition_check_failure: str | None = None,
    ) -> Item:
        with _writing():
            item = put_item(
                self,
                table_name=table_name,
                item_attrs=item_attrs,
                expected=expected,
                condition_expression=condition_expression,
                expression_attribute_names=expression_attribute_names,
                expression_attribute_values=expression_attribute_values,
                overwrite=overwrite,
                return_values_on_condition_check_failure=return_values_on_condition_check_failure,
            )
            moto_index.written(self.get_table(table_name), item)
            return item

    def locked_update_item(
        self: Any,
        table_name: str,
        key: dict[str, dict[str, Any]],
        update_expression: str,
        expression_attribute_names: dict[str, Any],
        expression_attribute_values: dict[str, Any],
        attribute_updates: dict[str, Any] | None = None,
        expected: dict[str, Any] | None = None,
        condition_expression: str | None = None,
        return_values_on_condition_check_failure: str | None = None,
    ) -> Item:
        with _writing():
            item = update_item(
                self,
                table_name=table_name,
                key=key,
                update_expression=update_expression,
                expression_attribute_names=expression_attribute_names,
                expression_attribute_values=expression_attribute_values,
                attribute_updates=attribute_updates,
                expected=expected,
                condition_expression=condition_expression,
                return_values_on_condition_check_failure=return_values_on_condition_check_failure,
            )
            moto_index.written(self.get_table(table_name), item)
            return item

    def locked_delete_item(
        self: Any,
        table_name: str,
        key: dict[str, Any],
        expression_attribute_names: dict[str, Any] | None = None,
        expression_attribute_values: dict[str, Any] | None = None,
        condition_expression: str | None = None,
        return_values_on_condition_check_failure: str | None = None,
    ) -> Item | None:
        with _writing():
            return delete_item(
                self,
                table_name=table_name,
                key=key,
                expression_attribute_names=expression_attribute_names,
                expression_attribute_values=expression_attribute_values,
                condition_expression=condition_expression,
                return_values_on_condition_check_failure=return_values_on_condition_check_failure,
            )

    # moto: DynamoHandler.update_item deep-copies the item before the (locked) backend update,
    # outside the lock: a write of the same item meanwhile failed it with "dictionary changed size
    # during iteration" (seen with webhook leases under a busy delivery worker).
    def locked_handle_update_item(self: DynamoHandler) -> Any:
        with _writing():
            return handle_update_item(self)

    # moto: DynamoDBBackend.describe_table counts the items by walking the table's dict: a write
    # meanwhile failed it with "dictionary changed size during iteration" (seen in a test reading
    # the stream's ARN).
    def locked_describe_table(self: Any, name: str) -> dict[str, Any]:
        with WRITE_LOCK:
            return describe_table(self, name=name)

    DynamoDBBackend.put_item = locked_put_item  # type: ignore[method-assign]
    DynamoDBBackend.update_item = locked_update_item  # type: ignore[method-assign]
    DynamoDBBackend.delete_item = locked_delete_item  # type: ignore[method-assign]
    DynamoHandler.update_item = locked_handle_update_item  # type: ignore[method-assign]
    DynamoDBBackend.describe_table = locked_describe_table  # type: ignore[method-assign]


# moto's limit of an item's size (LimitedSizeDict): DynamoDB's 400 KB, measured its way.
ITEM_SIZE_LIMIT = 405_000


def _patch_item_size() -> None:
    """An item checked against the size limit once, when it is made, instead of once per
    attribute: moto's Item puts its attributes into a LimitedSizeDict one at a time, and each
    assignment sums the size of every attribute already there, nested maps walked to the leaf
    (an entity of 18 attributes sized 171 attributes' worth; a feed entry and its audit record,
    whole changes with their previous values, more). The sums only grow, so the item fails the
    limit when, and only when, its whole size exceeds it: the same ItemSizeTooLarge, for the
    same items, as before. Later assignments (an update's) still check their way."""

    def init(self: Any, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]) -> None:
        self.hash_key = hash_key
        self.range_key = range_key
        converted = {key: DynamoType(value) for key, value in attrs.items()}
        self.attrs = LimitedSizeDict()
        dict.update(self.attrs, converted)
        if self.size() > ITEM_SIZE_LIMIT:
            raise ItemSizeTooLarge

    # moto: Item.__init__ assigns attribute by attribute into a LimitedSizeDict, which sums the whole item each time
    Item.__init__ = init  # type: ignore[method-assign]
    global _moto_size
    _moto_size = DynamoType.size
    # moto: DynamoType.size wraps every nested value in a new DynamoType to size it, level by level
    DynamoType.size = _value_size  # type: ignore[method-assign]


_NUMBERS, _SETS = "N", frozenset({"SS", "NS", "BS"})
_moto_size: Any = None  # moto's own DynamoType.size (the unit tests compare)


def _value_size(self: Any) -> int:
    """moto's DynamoType.size, the same number without its copies: moto wraps every value of a
    map in a new DynamoType to size it, which wraps all of that value's children again, level
    by level. A Scan sizes every item it reads (its 1 MB pages), so a backfill's scans of a
    session's table of tens of thousands of items spent most of their time here."""
    kind, value = self.type, self.value
    if kind == _NUMBERS:
        return len(str(value))
    if kind in _SETS:
        return sum(len(str(v)) for v in value) if kind == "NS" else sum(bytesize(v) for v in value)
    if kind == "L":
        return sum(_value_size(v) for v in value)
    if kind == "M":
        return sum(bytesize(k) + _value_size(v if type(v) is DynamoType else DynamoType(v)) for k, v in value.items())
    if isinstance(value, bool):
        return 1
    return bytesize(value)


# Expressions whose parse is kept (more distinct texts than a process sends: pynamodb writes names
# and values as placeholders, `SET #0 = :0, #1 = :1`).
PARSES_KEPT = 1024


def _patch_expression_parses() -> None:
    """An update expression, and the tokens of a condition, parsed once per text: a process
    sends the same few dozen texts over and over, and moto parsed each anew on every call
    (UpdateItem's twice: handler and backend), a twentieth of a functional test's CPU. The
    update's tree is only read (for the placeholders it names) or deep-copied by the validator
    before any value is bound to it; a condition's tokens are tuples whose empty `children`
    nothing fills, handed out in a deque of their own since the parser pops them."""
    # moto: UpdateExpressionParser.make parses the same update text anew on every call (UpdateItem's twice)
    UpdateExpressionParser.make = staticmethod(functools.lru_cache(maxsize=PARSES_KEPT)(UpdateExpressionParser.make))
    lex = ConditionExpressionParser._lex_condition_expression
    lexed: dict[str, tuple[Any, ...]] = {}

    def lex_once(self: ConditionExpressionParser) -> Any:
        text = self.condition_expression or ""  # parse() lexes only a text
        tokens = lexed.get(text)
        if tokens is None:
            tokens = tuple(lex(self))
            if len(lexed) < PARSES_KEPT:
                lexed[text] = tokens
        return deque(tokens)

    # moto: ConditionExpressionParser._lex_condition_expression lexes the same condition text anew on every call
    ConditionExpressionParser._lex_condition_expression = lex_once  # type: ignore[method-assign]


def _patch_request_overhead() -> None:
    """Two costs moto pays on every request, whatever it does: the names of its response
    class's methods, found with inspect.getmembers (0.3 ms), and a request id of 52
    characters drawn one random.choice at a time. The names of a class do not change; the
    id's characters are drawn in one call, as one random number where digits may be among them."""
    # moto: core.responses.method_names_from_class runs inspect.getmembers over the class on every request
    moto_responses.method_names_from_class = functools.lru_cache(maxsize=None)(  # type: ignore[assignment]
        moto_responses.method_names_from_class
    )

    def get_random_string(self: Any, length: int = 20, include_digits: bool = True, lower_case: bool = False) -> str:
        if include_digits:  # hex digits are letters and digits: drawn as one number (0.5 µs, not 10)
            return f"{self.getrandbits(4 * length):0{length}x}"
        drawn = "".join(self.choices(string.ascii_letters, k=length))
        return drawn.lower() if lower_case else drawn

    # moto: MotoRandom.get_random_string draws a request id's characters one random.choice at a time
    MotoRandom.get_random_string = get_random_string  # type: ignore[method-assign]


def _patch_dispatch() -> None:
    """moto's server picks the backend of every request under one lock by listing moto's
    package directory (a stat per service, ~150) and then trying every service's URL
    patterns: a quarter of the local stack's CPU under load, and every request waits its
    turn for it. The answer depends on the host alone and never changes: kept per host."""
    find = DomainDispatcherApplication.get_backend_for_host
    known: dict[str | None, Any] = {}

    def get_backend_for_host(self: Any, host: str | None) -> Any:
        if host not in known:
            known[host] = find(self, host)
        return known[host]

    # moto: DomainDispatcherApplication.get_backend_for_host lists moto's package and tries every URL pattern,
    # under one lock, on every request
    DomainDispatcherApplication.get_backend_for_host = get_backend_for_host  # type: ignore[method-assign]


def _patch_bucket_listing() -> None:
    """moto lists a bucket's versions by copying its key names, then looking each one up: a
    key deleted in between (another upload refused at the same moment) answers None, and the
    listing fails with a TypeError. Here the listing walks one copy of the names with their
    versions, as S3 answers a listing: what was there when it began."""

    def iterlists(self: Any) -> Any:
        yield from self._self_iterable().items()

    # moto: _VersionedKeyStore.lists (_iterlists) looks each copied key name up again, None once it is deleted
    _VersionedKeyStore.lists = _VersionedKeyStore.iterlists = iterlists  # type: ignore[method-assign]


def _patch_sqs() -> None:
    """moto 5.2 counts a queue's messages (three passes, reading the clock for every
    message) to build the queue's attributes, and builds them for every message it sends
    and every message it hands out, if only to read one setting: a queue a bulk upload
    fills with thousands of S3 notices then costs quadratic time. Here the retention check
    reads its one setting, and the counts take one clock reading per pass. Answers are
    unchanged.

    A long poll (WaitTimeSeconds) of a FIFO queue returns to its scan at once while any
    message is visible, even one whose group is blocked by a message in flight: a queue of
    webhook deliveries waiting behind a retry spun a core for the whole poll. Here the poll
    sleeps until a message is sent or 200 ms passed (a message turning visible again is seen
    within 200 ms; a scan of a queue of thousands of waiting messages costs milliseconds).

    The same long poll also takes its list of FIFO groups in flight once, when it begins: a
    message received by another consumer meanwhile did not block its group, so a poll
    that had been waiting handed out the group's next message while the first was still in
    flight (webhook events of one entity arrived out of order). Here each pass of a long
    poll is a short poll of its own, with a fresh list, one consumer at a time, as SQS
    keeps a group's messages one at a time. And moto cleans a FIFO group's messages that are
    visible again out of its in-flight list one by one as it meets them, so when a group's
    messages all came back at once, the group counted as in flight until the last, which
    then went first: each pass cleans them all before it looks. A pass reads the clock once:
    moto's pass, finding a group's last message visible by the time it reached it, freed the
    group and handed that message out alone, after skipping the group's earlier messages
    (one in twenty runs of a retried entity's events arrived last first)."""

    pass_clock = threading.local()  # the time of the receive pass this thread is in, if any

    def now_millis() -> float:
        frozen = getattr(pass_clock, "millis", None)
        return float(frozen) if frozen is not None else time.time() * 1000

    def is_message_valid_based_on_retention_period(self: Any, queue_name: str, message: Any) -> bool:
        retention = int(self.get_queue(queue_name).message_retention_period)
        return bool(retention + message.sent_timestamp / 1000 > unix_time())

    def messages(self: Any) -> list[Any]:
        now = now_millis()
        return [m for m in self._messages if now > m.visible_at and not now < m.delayed_until]

    def delayed(self: Any) -> int:
        now = unix_time_millis()
        return sum(1 for m in self._messages if now < m.delayed_until)

    def not_visible(self: Any) -> int:
        now = unix_time_millis()
        return sum(1 for m in self._messages if not now > m.visible_at)

    receive_once = SQSBackend.receive_message
    receiving = threading.Lock()

    def receive_message(
        self: Any,
        queue_name: str,
        count: int,
        wait_seconds_timeout: int,
        visibility_timeout: int,
        message_attribute_names: Any = None,
    ) -> Any:
        deadline = unix_time() + wait_seconds_timeout
        while True:
            with receiving:
                pass_clock.millis = time.time() * 1000
                try:
                    queue = self.get_queue(queue_name)
                    # copy() is one step under the GIL: a visibility change or delete on another
                    # thread meanwhile must not break the iteration ("set changed size")
                    for message in [m for m in queue.pending_messages.copy() if m.visible]:
                        queue.pending_messages.discard(message)
                    result = receive_once(
                        self,
                        queue_name=queue_name,
                        count=count,
                        wait_seconds_timeout=0,  # one pass: the loop here waits
                        visibility_timeout=visibility_timeout,
                        message_attribute_names=message_attribute_names,
                    )
                finally:
                    pass_clock.millis = None
            if result or unix_time() >= deadline:
                return result
            self.get_queue(queue_name).wait_for_messages(1)

    def pending_message_groups(self: Any) -> set[str]:
        # a copy, taken in one step under the GIL: the set is another thread's to change meanwhile
        return {message.group_id for message in self._pending_messages.copy() if message.group_id is not None}

    def message_visible(self: Any) -> bool:  # moto reads the clock through two datetimes per message
        return bool(now_millis() > self.visible_at)

    def message_delayed(self: Any) -> bool:
        return bool(now_millis() < self.delayed_until)

    def wait_for_messages(self: Any, timeout: int) -> None:
        with self._messages_lock:
            self._messages_lock.wait(timeout=min(timeout, 0.2))

    # moto: SQSBackend.is_message_valid_based_on_retention_period builds all the queue's attributes (its
    # message counts among them) to read MessageRetentionPeriod, for every message sent and received
    SQSBackend.is_message_valid_based_on_retention_period = is_message_valid_based_on_retention_period  # type: ignore[method-assign]
    # moto: Queue.wait_for_messages returns at once while any message is visible, even one of a blocked FIFO group
    Queue.wait_for_messages = wait_for_messages  # type: ignore[method-assign]
    # moto: Message.visible and Message.delayed read the clock through two datetimes per message, per pass
    Message.visible = property(message_visible)  # type: ignore[method-assign,assignment]
    Message.delayed = property(message_delayed)  # type: ignore[method-assign,assignment]
    # moto: SQSBackend.receive_message takes a long poll's FIFO groups in flight once, when it begins, and frees a
    # group's messages visible again one by one as it meets them (the docstring above)
    SQSBackend.receive_message = receive_message  # type: ignore[method-assign]
    # moto: Queue.messages and the approximate counts read the clock once per message (through Message.visible)
    Queue.messages = property(messages)  # type: ignore[method-assign,assignment]
    # moto: Queue.pending_message_groups iterates the set of received messages that a delete or a
    # visibility change on another thread changes meanwhile; "Set changed size during iteration"
    # ended a receive pass after it had marked messages received, which then blocked their FIFO
    # groups unseen for the visibility timeout
    Queue.pending_message_groups = property(pending_message_groups)  # type: ignore[method-assign,assignment]
    Queue.approximate_number_of_messages_delayed = property(delayed)  # type: ignore[method-assign,assignment]
    Queue.approximate_number_of_messages_not_visible = property(not_visible)  # type: ignore[method-assign,assignment]


def _patch_table_walk() -> None:
    """moto answers every Query by walking the whole table, sorted (a sort of every item per
    Query: the local stack slowed down as tables grew), and walks the table's dicts while
    other request threads may insert into them ("dictionary changed size during iteration",
    a 500 the client retries). Here a walk takes a snapshot; a Query on the table itself
    walks only its partition, a Query on a global index only the items moto_index finds
    for its hash key, without the sort (both sort what they found themselves); Scan walks
    in key order as before, which its paging relies on."""
    walk = threading.local()  # what the current request's walk needs
    original_query, original_scan = Table.query, Table.scan

    def all_items(self: Any) -> list[Any]:
        mode = getattr(walk, "mode", None)
        if mode == "index":
            return list(walk.candidates)
        if mode == "partition":
            partition = self.items.get(walk.hash_key)
            if partition is None:
                return []
            return list(partition.values()) if self.range_key_attr else [partition]
        items: list[Any] = []
        for hash_set in list(self.items.values()):
            if self.range_key_attr:
                items.extend(list(hash_set.values()))
            else:
                items.append(hash_set)
        if mode == "unsorted":
            return items
        return sorted(items, key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)

    def query(
        self: Any,
        hash_key: DynamoType | None,
        range_comparison: str | None,
        range_objs: list[DynamoType],
        limit: int,
        exclusive_start_key: dict[str, Any],
        scan_index_forward: bool,
        projection_expressions: list[list[str]] | None,
        index_name: str | None = None,
        consistent_read: bool = False,
        filter_expression: Any = None,
        hash_key_conditions: list[tuple[str, DynamoType]] | None = None,
        range_key_conditions: list[tuple[str, str, list[DynamoType]]] | None = None,
        **filter_kwargs: Any,
    ) -> Any:
        walk.mode, walk.hash_key = (
            ("partition", hash_key) if index_name is None and hash_key is not None else ("unsorted", None)
        )
        if index_name is not None:
            found = _index_candidates(self, index_name, hash_key, hash_key_conditions)
            if found is not None:
                # a filter (or a legacy QueryFilter's conditions) may compare any attribute: the whole items
                filtering = (filter_expression is not None and not isinstance(filter_expression, OpDefault)) or bool(
                    filter_kwargs
                )
                walk.mode = "index"
                walk.candidates = found if filtering else _slim(self, index_name, found, projection_expressions)
        try:
            return original_query(
                self,
                hash_key=hash_key,
                range_comparison=range_comparison,
                range_objs=range_objs,
                limit=limit,
                exclusive_start_key=exclusive_start_key,
                scan_index_forward=scan_index_forward,
                projection_expressions=projection_expressions,
                index_name=index_name,
                consistent_read=consistent_read,
                filter_expression=filter_expression,
                hash_key_conditions=hash_key_conditions,
                range_key_conditions=range_key_conditions,
                **filter_kwargs,
            )
        finally:
            walk.mode = walk.hash_key = walk.candidates = None

    def scan(
        self: Any,
        filters: dict[str, Any],
        limit: int,
        exclusive_start_key: dict[str, Any],
        filter_expression: Any = None,
        index_name: str | None = None,
        consistent_read: bool = False,
        projection_expression: list[list[str]] | None = None,
        segments: tuple[Any, Any] = (None, None),
    ) -> Any:
        """A Scan of the table itself (no index, segment or legacy filter) resumes at its start
        key by bisection and copies only the items its filter keeps: moto walked the table from
        its first item for every page and deep-copied every item it read, so a Scan of a
        table of N items in pages of 1 MB cost N²; the orphan sweep of a long test session
        took seconds. Pages, counts and keys are moto's."""
        if filters or index_name or segments != (None, None):
            walk.mode = "sorted"
            try:
                return original_scan(
                    self,
                    filters=filters,
                    limit=limit,
                    exclusive_start_key=exclusive_start_key,
                    filter_expression=filter_expression,
                    index_name=index_name,
                    consistent_read=consistent_read,
                    projection_expression=projection_expression,
                    segments=segments,
                )
            finally:
                walk.mode = None
        walk.mode = "unsorted"
        try:
            items = all_items(self)
        finally:
            walk.mode = None
        attrs = [name for name in (self.hash_key_attr, self.range_key_attr) if name]
        keyed = sorted(((tuple(_key_value(i.attrs[a]) for a in attrs), i) for i in items), key=lambda pair: pair[0])
        start = 0
        if exclusive_start_key:
            given = [exclusive_start_key[a] for a in attrs]
            after = tuple(_key_value(v if isinstance(v, DynamoType) else DynamoType(v)) for v in given)
            start = bisect.bisect_right(keyed, after, key=lambda pair: pair[0])
        results: list[Any] = []
        scanned, size, last, previous = 0, 0, None, None
        for _, item in keyed[start:]:
            item_size = item.size()
            if previous is not None and (scanned == limit or size + item_size > RESULT_SIZE_LIMIT):
                last = self._get_last_evaluated_key(previous, None)
                break
            size += item_size
            scanned += 1
            previous = item
            if filter_expression is None or filter_expression.expr(item):
                results.append(copy.deepcopy(item))
        if projection_expression:
            results = [r.project(projection_expression) for r in results]
        return results, scanned, last

    def _slim(table: Any, index_name: str, items: list[Any], projection: list[list[str]] | None) -> list[Any]:
        """The candidates with only what a Query without a filter can return or compare: the
        table's and the index's keys and the projected top-level attributes. moto deep-copies
        and sizes every candidate before it projects; a page of keys out of 1,000 contacts
        spent most of its time copying the contacts' data."""
        if not projection or not all(len(path) == 1 for path in projection):
            return items
        index = next(i for i in table.global_indexes if i.name == index_name)
        keep = {
            table.hash_key_attr,
            table.range_key_attr,
            *(key["AttributeName"] for key in index.schema),
            *(path[0] for path in projection),
        }
        return [_item_of(item, {k: v for k, v in item.attrs.items() if k in keep}) for item in items]

    def _index_candidates(table: Any, index_name: str, hash_key: Any, conditions: Any) -> list[Any] | None:
        """The items a Query on a global secondary index can match (moto_index), None to walk."""
        index = next((i for i in table.global_indexes if i.name == index_name), None)
        attribute = moto_index.hash_attribute(index) if index is not None else None
        if attribute is None:
            return None
        value = dict(conditions).get(attribute) if conditions else hash_key
        return None if value is None else moto_index.candidates(table, attribute, value)

    def sorted_items(
        self: Any, hash_key_attrs: list[str], range_key_attrs: list[str | None], items: list[Any]
    ) -> list[Any]:
        """moto's order (the index's keys, then the table's), keyed by the attributes' values once
        per item: its tuples of DynamoType compared by converting both sides on every comparison
        (280,000 conversions to sort 1,000 index entries)."""
        attrs = self._generate_attr_to_sort_by(hash_key_attrs, range_key_attrs)
        items.sort(key=lambda item: tuple(_key_value(item.attrs[name]) for name in attrs))
        return items

    # moto: Table.sorted_items compares tuples of DynamoType, converting both sides on every comparison
    Table.sorted_items = sorted_items  # type: ignore[method-assign]
    # moto: Table.all_items walks (and sorts) the whole table, its dicts live while other threads insert
    Table.all_items = all_items  # type: ignore[method-assign]
    # moto: Table.query walks the whole table for every Query, of the table or of a global index
    Table.query = query  # type: ignore[method-assign]
    # moto: Table.scan walks from the table's first item for every page and deep-copies every item it reads
    Table.scan = scan  # type: ignore[method-assign]


def _patch_projection() -> None:
    """A projection on top-level attributes without rebuilding the whole item per attribute.
    moto's Item.project turns the full item into plain JSON (a deep copy) once per projected
    attribute, then serialises the result back: a Query on a global index (KEYS_ONLY, five
    key attributes, then our ProjectionExpression) paid that ten times per matching item,
    half a second for a page of contacts out of 1,000. Nested paths still take moto's way."""
    original = Item.project

    def project(self: Any, projection_expressions: list[list[str]]) -> Any:
        if not all(len(path) == 1 and "[" not in path[0] for path in projection_expressions):
            return original(self, projection_expressions)
        names = {path[0] for path in projection_expressions}
        return _item_of(self, {name: copy.deepcopy(value) for name, value in self.attrs.items() if name in names})

    # moto: Item.project turns the whole item into JSON (a deep copy) once per projected attribute
    Item.project = project  # type: ignore[method-assign]


def _patch_item_answers() -> None:
    """The answers of the reads that carry items as JSON text straight away. moto 5.2 walks
    the service model's output shape for every attribute of every item (its generic
    serialiser): most of a page's time. For these operations the result is already in
    DynamoDB's wire form (attribute-value maps, numbers as strings), so the JSON text is the
    same (checked against the serialiser's); a binary value, which needs base64, still goes
    the serialiser's way."""
    original = DynamoResult.execute_result
    reads = frozenset({"GetItem", "BatchGetItem", "Query", "Scan"})

    def refuse(value: Any) -> Any:
        raise TypeError(f"not plain JSON: {type(value).__name__}")

    def execute_result(self: Any, context: Any) -> Any:
        if context.operation_model.name in reads:
            try:
                body = json.dumps(self.result, default=refuse)
            except TypeError:
                pass
            else:
                return 200, {"Content-Type": "application/x-amz-json-1.0"}, body
        return original(self, context)

    # moto: DynamoResult.execute_result (ActionResult's) walks the output shape for every attribute of every item
    DynamoResult.execute_result = execute_result  # type: ignore[method-assign]

    # The change stream's records carry whole item images the same way (and a creation time,
    # written as the serialiser writes a timestamp: epoch seconds, to the millisecond).
    generic = ActionResult.execute_result

    def plain(value: Any) -> Any:
        if isinstance(value, dt.datetime):
            seconds = calendar.timegm(value.timetuple())
            return seconds + (value.microsecond // 1000) / 1000.0 if value.microsecond else seconds
        return refuse(value)

    def stream_result(self: Any, context: Any) -> Any:
        if context.operation_model.name == "GetRecords":
            try:
                body = json.dumps(self.result, default=plain)
            except TypeError:
                pass
            else:
                return 200, {"Content-Type": "application/x-amz-json-1.0"}, body
        return generic(self, context)

    # moto: ActionResult.execute_result does the same for GetRecords' item images
    ActionResult.execute_result = stream_result  # type: ignore[method-assign]


def _key_value(value: DynamoType) -> Any:
    """What a key attribute sorts by: its cast_value, which for a string is the string itself (read
    straight away: a Scan sorts every item of the table by its keys for each page it answers)."""
    return value.value if value.type == "S" else value.cast_value


def _item_of(item: Any, attrs: dict[str, Any]) -> Any:
    """A moto item with the same keys and these attributes (DynamoType values), built without
    re-validating its size attribute by attribute (moto's LimitedSizeDict sums the whole
    item on every assignment; a subset of a stored item is within the limit)."""
    made: Any = Item.__new__(Item)
    made.hash_key, made.range_key = item.hash_key, item.range_key
    made.attrs = LimitedSizeDict()
    dict.update(made.attrs, attrs)
    return made

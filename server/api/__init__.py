"""The operation table shared by REST and MCP: one schema per operation (``schemas``), the
validated engine call and its answerer (``calls``), a request body read as JSON within the
contract's depth (``jsonbody``), and how an answer or an error becomes a response with its
status (``responses``, the one error table, and the one-line log of a bug)."""

from server.api.calls import MAX_CACHED_BODY, answerer, decode, run_operation, schema_error
from server.api.corpus import corpus_paths, with_corpus
from server.api.jsonbody import MAX_DEPTH, SHALLOW, depth
from server.api.responses import (
    STATUS,
    ClientDisconnected,
    Headers,
    RequestHeaders,
    Response,
    error_response,
    internal_error,
    size_text,
)
from server.api.result_schemas import ERROR
from server.api.schemas import OPERATIONS, Operation

__all__ = [
    "ERROR",
    "MAX_CACHED_BODY",
    "MAX_DEPTH",
    "OPERATIONS",
    "SHALLOW",
    "STATUS",
    "ClientDisconnected",
    "Headers",
    "Operation",
    "RequestHeaders",
    "Response",
    "answerer",
    "corpus_paths",
    "decode",
    "depth",
    "error_response",
    "internal_error",
    "run_operation",
    "schema_error",
    "size_text",
    "with_corpus",
]

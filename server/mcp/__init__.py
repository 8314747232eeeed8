"""MCP: the hosted ``POST /mcp`` endpoint (``endpoint``) on JSON-RPC 2.0 (``jsonrpc``), its
kept calls (``kept``), the service's gate it calls (``gate``), its requests' checks
(``requests``), the tool table built from the operation table (``tools``), and the stdio server
(``stdio``, the ``harmony-mcp`` entry point; not imported here: it loads the ``mcp`` SDK, a
second of start-up the hosted route does not need)."""

from server.mcp.endpoint import McpEndpoint
from server.mcp.gate import Gate
from server.mcp.jsonrpc import SERVICE_ERROR, Reply, error_body
from server.mcp.tools import McpTool, tool_error, tool_table

__all__ = [
    "SERVICE_ERROR", "Gate", "McpEndpoint", "McpTool", "Reply", "error_body", "tool_error",
    "tool_table",
]

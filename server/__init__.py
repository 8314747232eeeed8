"""The service: adapts HTTP (``http``) and MCP (``mcp``) to engine calls through one operation
table (``api``), and owns keys, limits, logs and metrics (``accounts``); ``cli`` is the
``harmony`` command. Arrows point one way: cli -> http -> mcp -> api -> engine, and
http -> accounts -> engine."""

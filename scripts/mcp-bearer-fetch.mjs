// Preload (`node --import`) for the MCP Inspector CLI 0.15, the last release that runs on Node 20:
// it has no option to send a header, so this adds `Authorization: Bearer $MCP_BEARER_TOKEN` to the
// fetch calls it makes to $MCP_BEARER_URL (and to nothing else). Used by scripts/mcp-inspector-check.sh.
const token = process.env.MCP_BEARER_TOKEN;
const target = process.env.MCP_BEARER_URL;

const { Headers, Request } = globalThis;

if (token && target) {
  const originalFetch = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(target)) return originalFetch(input, init);
    const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('authorization', `Bearer ${token}`);
    return originalFetch(input, { ...init, headers });
  };
}

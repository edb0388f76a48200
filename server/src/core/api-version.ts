/** The version of the API, as the OpenAPI document's `info.version` and the MCP server's `serverInfo` give it. */
export const API_VERSION = '1.0.0';

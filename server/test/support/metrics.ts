/**
 * `GET /metrics` read as a test needs it: each sample line of the Prometheus text format as
 * `name{labels}` → value, e.g. `pollkit_redis_connected` → 1,
 * `pollkit_http_requests_total{route="/api/v1/polls/{id}",method="GET",status="200"}` → 3.
 */
export async function scrapeMetrics(baseUrl: string, token: string): Promise<Map<string, number>> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${await response.text()}`);
  return parseMetrics(await response.text());
}

export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a per-address limit counts a client by. An IPv4 address as it is. An IPv6 address by its
 * /64: the network one subscriber, one host even, is given — it may pick any of its 2^64 addresses
 * per request, so counting single IPv6 addresses would give it as many budgets. An IPv4 address
 * mapped into IPv6 (`::ffff:192.0.2.1`, as a dual-stack socket reports IPv4 clients) is its IPv4.
 */
export function addressKey(ip: string): string {
  const address = ip.split('%')[0] ?? ip;
  if (isIPv4(address) || !isIPv6(address)) return address;
  const hextets = expandIPv6(address);
  const mapped = hextets.slice(0, 6).join(':') === '0:0:0:0:0:ffff';
  if (mapped) {
    const [high = 0, low = 0] = hextets.slice(6).map((h) => Number.parseInt(h, 16));
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${hextets.slice(0, 4).join(':')}::/64`;
}

/** The eight hextets of a valid IPv6 address, without leading zeros (`::` and a dotted IPv4 tail expanded). */
function expandIPv6(address: string): string[] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => '0');
  return [...left, ...zeros, ...right].map((h) => Number.parseInt(h, 16).toString(16));
}

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
};

export interface StaticSite {
  url: string;
  close(): Promise<void>;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

/**
 * Serves a built VitePress site (`cleanUrls: true`) from `root` on 127.0.0.1 at an ephemeral port, as
 * any static host does: `/polls` is `polls.html`, `/sdk/reference/` is its `index.html`, anything
 * else is the site's 404 page with status 404.
 */
export async function serveStaticSite(root: string): Promise<StaticSite> {
  const server: Server = createServer(async (req, res) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    const local = normalize(join(root, pathname));
    if (local !== root && !local.startsWith(root + sep)) {
      res.writeHead(404).end();
      return;
    }
    const candidates = pathname.endsWith('/') ? [join(local, 'index.html')] : [local, `${local}.html`];
    for (const candidate of candidates) {
      if (await isFile(candidate)) {
        res.writeHead(200, { 'content-type': contentTypes[extname(candidate)] ?? 'application/octet-stream' });
        createReadStream(candidate).pipe(res);
        return;
      }
    }
    res.writeHead(404, { 'content-type': contentTypes['.html'] });
    createReadStream(join(root, '404.html')).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

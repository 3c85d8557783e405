import fastifyStatic from '@fastify/static';
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Plain file names only (page folders have no sub-folders): anything else is a 404 before the disk is asked. */
const FILE_NAME = /^[a-z0-9-]+\.(js|css|svg)$/;
const FileParamsSchema = Type.Object(
  { file: Type.String({ maxLength: 100 }) },
  { additionalProperties: false },
);
const PAGE = { config: { public: true }, schema: { hide: true } } as const;

export interface StaticPagesOptions {
  /** The folder served. */
  dir: string;
  /** Where the page lives (`/demo`): `/demo` redirects to `/demo/`, which answers index.html. */
  path: string;
  /** Where its files are (`/demo/`, `/console/assets/`), as `<assets>:file`. */
  assets: string;
  /** Headers of every page and file: CSP, caching, referrer policy... */
  headers: Readonly<Record<string, string>>;
}

/**
 * A page of static files (the demo portal, the developer console), served by @fastify/static's
 * `sendFile` (ETag, Last-Modified, 304, content types, no path traversal), hidden from the API
 * document, each answer with the page's headers. Returns the function that sets those headers, for
 * the feature's own page routes.
 */
export async function registerStaticPages(
  app: FastifyInstance,
  options: StaticPagesOptions,
): Promise<(reply: FastifyReply) => void> {
  const headers = (reply: FastifyReply) => reply.headers(options.headers);
  await app.register(fastifyStatic, {
    root: options.dir,
    serve: false,
    cacheControl: false,
    dotfiles: 'deny',
    // RFC 9239: JavaScript is text/javascript (the mime table still says application/javascript).
    setHeaders: (reply, path) => {
      if (path.endsWith('.js')) reply.header('content-type', 'text/javascript; charset=utf-8');
    },
  });
  app.get(options.path, PAGE, async (_request, reply) => reply.redirect(`${options.path}/`, 301));
  app.get(`${options.path}/`, PAGE, async (_request, reply) => {
    headers(reply);
    return reply.sendFile('index.html', options.dir);
  });
  app.get(
    `${options.assets}:file`,
    { ...PAGE, schema: { hide: true, params: FileParamsSchema } },
    async (request, reply) => {
      const { file } = request.params as { file: string };
      if (!FILE_NAME.test(file)) return reply.callNotFound();
      headers(reply);
      return reply.sendFile(file, options.dir);
    },
  );
  return headers;
}

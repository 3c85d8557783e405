/**
 * Child-process entry: the baseline. A minimal Fastify 5 server (default options, no logger, no
 * hooks) with one GET route that answers a fixed JSON body through a response schema, so the
 * baseline pays for routing and fast-json-stringify exactly as the service does, and nothing else.
 */
import Fastify from 'fastify';
import { serveChild } from './protocol.ts';

export interface BareServerOptions {
  path: string;
  /** The JSON the route answers (a copy of a real response of the service). */
  body: unknown;
  /** Named schemas the response schema refers to (`$id`), added with addSchema. */
  schemas: object[];
  /** The 200 response schema. */
  response: object;
}

serveChild<BareServerOptions>(async (options) => {
  const app = Fastify();
  for (const schema of options.schemas) app.addSchema(schema);
  app.get(options.path, { schema: { response: { 200: options.response } } }, async () => options.body);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { port: address.port, info: { fastify: app.version }, close: () => app.close() };
});

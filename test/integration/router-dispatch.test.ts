/**
 * The API router's two lookups (api/http/router.ts): a route without path parameters is found by its exact method and
 * path, any other by koa-router's match in its group. Which lookup finds a route must never change which route
 * answers: the first route declared that matches the path and method, as koa-router has it.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import Koa from 'koa';
import { createExecutor } from '../../api/http/idempotent-execution';
import { buildRouter } from '../../api/http/router';
import { defineRoute, type RouteDefinition } from '../../api/http/route-definition';
import { loadConfig } from '../../core/platform/config';
import { createSecretBox } from '../../core/platform/secret-box';
import { testEnv } from '../support/env';
import { testDb } from '../support/resources';

function answering(method: 'get' | 'post', path: string, name: string): RouteDefinition {
  return defineRoute({
    method,
    path,
    operationId: name,
    summary: name,
    description: name,
    tags: ['Test'],
    auth: { kind: 'none' },
    ...(path.includes('{id}')
      ? { params: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } }
      : {}),
    optionalBody: true,
    responses: { 200: { description: 'the answer', schema: { type: 'object' }, example: {} } },
    handler: async (_ctx, { params }) => ({ status: 200, body: { by: name, params } }),
  } as RouteDefinition & { method: 'get' });
}

describe('API router: routes found by exact path answer as koa-router would', () => {
  let server: Server;
  let baseUrl: string;

  before(async () => {
    const config = loadConfig({ APP_ENV: 'test', DATABASE_URL: testEnv.databaseUrl, REDIS_URL: testEnv.redisUrl });
    const router = buildRouter(
      [
        answering('get', '/things/{id}', 'oneThing'), // declared first: it matches /things/special too
        answering('get', '/things/special', 'specialThing'),
        answering('get', '/things', 'allThings'),
        answering('post', '/things', 'newThing'),
        answering('get', '/others/plain', 'plainOther'), // no parameter route before it: found by its path
        answering('get', '/others/{id}', 'oneOther'),
      ],
      createExecutor({
        db: testDb(),
        errorBaseUrl: config.errorBaseUrl,
        secretBox: createSecretBox(config.webhooks.secretKeys),
      }),
    );
    const app = new Koa();
    app.use(async (ctx, next) => {
      await router.routes(ctx, next);
      if (ctx.body === undefined) Object.assign(ctx, { status: 404, body: { by: 'nobody' } });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  async function answerOf(method: string, path: string): Promise<{ status: number; by: string; params?: unknown }> {
    const res = await fetch(`${baseUrl}${path}`, { method });
    const body = (await res.json()) as { by: string; params?: unknown };
    return { status: res.status, ...body };
  }

  it('a path a parameter route declared first also matches is that route’s', async () => {
    expect(await answerOf('GET', '/things/special')).to.deep.equal({
      status: 200,
      by: 'oneThing',
      params: { id: 'special' },
    });
  });

  it('a route without parameters answers its exact path and method, with no parameters', async () => {
    expect(await answerOf('GET', '/things')).to.deep.equal({ status: 200, by: 'allThings', params: {} });
    expect(await answerOf('POST', '/things')).to.deep.equal({ status: 200, by: 'newThing', params: {} });
    expect(await answerOf('GET', '/others/plain')).to.deep.equal({ status: 200, by: 'plainOther', params: {} });
    expect(await answerOf('GET', '/others/else')).to.deep.equal({
      status: 200,
      by: 'oneOther',
      params: { id: 'else' },
    });
  });

  it('only its exact path: no trailing slash, no other case, no other method', async () => {
    expect(await answerOf('GET', '/things/')).to.deep.equal({ status: 404, by: 'nobody' });
    expect(await answerOf('GET', '/Things')).to.deep.equal({ status: 404, by: 'nobody' });
    expect(await answerOf('DELETE', '/things')).to.deep.equal({ status: 404, by: 'nobody' });
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../src/model/errors';
import { SELF_SUBJECT_REVIEWS, SessionClient } from '../src/model/session';
import { FakeHttp, json } from './fakes';

const unauthorized = json({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }, 401);

describe('session', () => {
  test('who the page is: the SelfSubjectReview the API server answers', async () => {
    const fake = new FakeHttp();
    fake.on((request) =>
      request.method === 'POST' && request.path === SELF_SUBJECT_REVIEWS
        ? json({ kind: 'SelfSubjectReview', status: { userInfo: { username: 'system:serviceaccount:default:viewer', groups: ['system:serviceaccounts', 'system:authenticated'] } } }, 201)
        : undefined,
    );
    const who = await new SessionClient(fake.http).whoAmI();
    assert.deepEqual(who, { signedIn: true, username: 'system:serviceaccount:default:viewer', groups: ['system:serviceaccounts', 'system:authenticated'] });
    const sent = fake.requests[0];
    assert.ok(sent);
    assert.equal(sent.contentType, 'application/json');
    assert.deepEqual(JSON.parse(sent.body ?? ''), { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  });

  test('only a 401 means signed out', async () => {
    const answers = [unauthorized, json({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }, 403), 'network-error' as const];
    const seen = [];
    for (const answer of answers) {
      const fake = new FakeHttp();
      fake.on(() => answer);
      seen.push(await new SessionClient(fake.http).whoAmI());
    }
    assert.deepEqual(seen, [
      { signedIn: false },
      { signedIn: true, username: '', groups: [] },
      { signedIn: true, username: '', groups: [] },
    ]);
  });

  test('signing in posts the trimmed token; a refusal comes back in the server words', async () => {
    const fake = new FakeHttp();
    fake.on((request) => {
      if (request.path !== '/login' || request.method !== 'POST') {
        return undefined;
      }
      const token = (JSON.parse(request.body ?? '{}') as { token?: string }).token;
      return token === 'good' ? json({ kind: 'Status', status: 'Success', message: 'signed in as "alice"', code: 200 }) : unauthorized;
    });
    const session = new SessionClient(fake.http);
    assert.equal(await session.signIn('  good\n'), 'signed in as "alice"');
    await assert.rejects(session.signIn('bad'), (error: unknown) => error instanceof ApiError && error.code === 401 && error.message === 'Unauthorized');
    await assert.rejects(session.signIn('   '), /Paste a bearer token/);
    assert.equal(fake.requests.length, 2);
  });

  test('signing out posts /logout and reports a refusal', async () => {
    const fake = new FakeHttp();
    let answer = json({ kind: 'Status', status: 'Success', message: 'signed out', code: 200 });
    fake.on((request) => (request.path === '/logout' && request.method === 'POST' ? answer : undefined));
    const session = new SessionClient(fake.http);
    await session.signOut();
    answer = unauthorized;
    await assert.rejects(session.signOut(), (error: unknown) => error instanceof ApiError && error.code === 401);
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cookieValue, csrfHeaders } from '../src/net/csrf';

describe('csrf', () => {
  test('reads the cookie among others', () => {
    assert.equal(cookieValue('a=1; ks_csrf=t%3Dk; b=2', 'ks_csrf'), 't=k');
    assert.equal(cookieValue('xks_csrf=1', 'ks_csrf'), undefined);
    assert.equal(cookieValue('', 'ks_csrf'), undefined);
    assert.equal(cookieValue('ks_csrf=%E0%A4%A', 'ks_csrf'), '%E0%A4%A');
  });

  test('sends the header on everything but GET and HEAD, when the cookie exists', () => {
    const cookies = 'ks_csrf_6480=abc';
    assert.deepEqual(csrfHeaders('GET', cookies, '6480'), {});
    assert.deepEqual(csrfHeaders('HEAD', cookies, '6480'), {});
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      assert.deepEqual(csrfHeaders(method, cookies, '6480'), { 'X-CSRF-Token': 'abc' });
    }
    assert.deepEqual(csrfHeaders('POST', 'other=1', '6480'), {});
  });

  test('takes the cookie of its own port only', () => {
    assert.deepEqual(csrfHeaders('POST', 'ks_csrf_6481=other; ks_csrf_6480=mine', '6480'), {
      'X-CSRF-Token': 'mine',
    });
    assert.deepEqual(csrfHeaders('POST', 'ks_csrf_6481=other', '6480'), {});
  });
});

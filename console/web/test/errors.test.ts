import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiClient } from '../src/model/api_client';
import { ApiError, asApiError, errorFromResponse, errorFromStatus } from '../src/model/errors';
import { FakeHttp, json } from './fakes';

describe('errors', () => {
  test('a Status body gives the server words, reason, code and causes', () => {
    const error = errorFromResponse(
      422,
      JSON.stringify({
        kind: 'Status',
        status: 'Failure',
        message: 'Namespace "" is invalid: metadata.name: Required value',
        reason: 'Invalid',
        details: { causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.name' }] },
        code: 422,
      }),
    );
    assert.equal(error.kind, 'status');
    assert.equal(error.describe(), 'Namespace "" is invalid: metadata.name: Required value (Invalid, 422)');
    assert.deepEqual(error.causes, [{ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value' }]);
  });

  test('a body that is not a Status is quoted, shortened', () => {
    const error = errorFromResponse(502, `<html>${'x'.repeat(1000)}</html>`);
    assert.equal(error.code, 502);
    assert.ok(error.message.startsWith('HTTP 502: <html>xxx'));
    assert.ok(error.message.length < 320);
    assert.equal(errorFromResponse(500, '').message, 'HTTP 500');
  });

  test('a Status without a message falls back to its reason', () => {
    assert.equal(errorFromStatus({ kind: 'Status', reason: 'Expired', code: 410 })?.describe(), 'Expired (Expired, 410)');
    assert.equal(errorFromStatus({ kind: 'Pod' }), undefined);
  });

  test('anything thrown becomes an ApiError', () => {
    assert.equal(asApiError(new TypeError('boom')).message, 'boom');
    assert.equal(asApiError('text').kind, 'network');
    const original = new ApiError('decode', 'x');
    assert.equal(asApiError(original), original);
  });

  test('the client rejects a non-2xx response with the Status, and non-JSON with a decode error', async () => {
    const http = new FakeHttp();
    http.onGet('/api/v1/namespaces/demo/configmaps/nope', json({ kind: 'Status', message: 'configmaps "nope" not found', reason: 'NotFound', code: 404 }, 404));
    http.onGet('/version', { status: 200, body: 'not json' });
    const client = new ApiClient(http.http);
    await assert.rejects(client.getJson('/api/v1/namespaces/demo/configmaps/nope'), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.describe(), 'configmaps "nope" not found (NotFound, 404)');
      return true;
    });
    await assert.rejects(client.getJson('/version'), /not JSON/);
  });
});

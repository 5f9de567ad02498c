// End-to-end test of the web console's loopback protections from inside the browser (see
// web_console.e2e.mjs for how to run it). The browser is signed in to the console; a page on
// another origin (a server on another loopback port, the same site for cookies) tries the
// console's API: a credentialed fetch that may read the answer, a fetch that may not (no-cors,
// no preflight), a fetch with the CSRF token read from the cookies (which the other port shares),
// and a form POST. The server refuses each with 403 naming the Origin (what the
// browser would let through is beside the point), and kubectl sees nothing written.
import { createServer } from 'node:http';
import {
  CONFIGMAPS, WEB, consoleParts, eventually, kubectl, kubectlFails, openBrowser, runScenarios, same, see,
} from './harness.mjs';

const session = await openBrowser();
const { page } = session;
const { rowNamed, signIn } = consoleParts(page);
const COLLECTION = `${WEB}api/v1/namespaces/default/configmaps`;
const bodyOf = (name) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { from: 'elsewhere' } });

// The other origin's page: a form that posts a ConfigMap to the console's API as text/plain
// (which needs no preflight): the body is the field's name, "=", its value, so JSON.
const formName = bodyOf('e2e-from-form').replace(/"}}$/, '", "pad": "');
const OTHER_PAGE = `<!doctype html><html><head><title>elsewhere</title></head><body>
<form id="form" method="post" enctype="text/plain" action="${COLLECTION}">
<input type="hidden" name='${formName}' value='"}}'>
</form></body></html>`;

const other = createServer((request, response) => {
  response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  response.end(OTHER_PAGE);
});
await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
other.unref();
const OTHER = `http://127.0.0.1:${other.address().port}/`;

// The server's answers as the browser's network layer saw them (the DevTools protocol): also those
// the page may not read (a CORS failure), which playwright's response events leave out.
const cdp = await session.context.newCDPSession(page);
await cdp.send('Network.enable');
const sent = new Map();
const answers = [];
cdp.on('Network.requestWillBeSent', (e) => sent.set(e.requestId, `${e.request.method} ${e.request.url}`));
cdp.on('Network.responseReceivedExtraInfo', (e) => answers.push({ id: e.requestId, status: e.statusCode }));
const ended = new Set();
cdp.on('Network.loadingFinished', (e) => ended.add(e.requestId));
cdp.on('Network.loadingFailed', (e) => ended.add(e.requestId));

// The console's answer to the request the page makes in `act`: its status, and its body when the
// browser kept it.
async function answerTo(method, url, act) {
  const before = answers.length;
  await act();
  const answer = await eventually(`the answer to ${method} ${url}`, () => answers.slice(before).find((a) => sent.get(a.id) === `${method} ${url}`));
  await eventually(`the end of ${method} ${url}`, () => ended.has(answer.id));
  const body = await cdp.send('Network.getResponseBody', { requestId: answer.id }).then((r) => r.body, () => undefined);
  return { status: answer.status, body };
}

// A 403 naming the origin when the browser kept the body (a form's page); the body of a fetch
// the page may not read is dropped, and then the status alone says it.
function refusedForOrigin(what, answer, { bodyKept }) {
  same(`the status of ${what}`, answer.status, 403);
  if (bodyKept && !answer.body?.includes('refuses requests from other sites')) {
    throw new Error(`${what}: the 403 should name the other site: ${answer.body}`);
  }
}

const scenarios = [
  ['the console, signed in, writes with its cookies', async () => {
    kubectl('create', 'configmap', 'e2e-target', '--from-literal=k=v');
    await signIn(CONFIGMAPS);
    await see(rowNamed('e2e-target'), 'the row e2e-target');
    const cookies = (await session.context.cookies(WEB)).map((c) => c.name);
    if (!cookies.some((name) => name.startsWith('ks_session_'))) {
      throw new Error(`no session cookie: ${cookies.join(', ')}`);
    }
  }],

  ['a credentialed fetch from another origin is refused and reads nothing', async () => {
    await page.goto(OTHER);
    same('the other page\'s origin', await page.evaluate(() => location.origin), OTHER.slice(0, -1));
    const get = `${COLLECTION}/e2e-target`;
    let outcome;
    const answer = await answerTo('GET', get, async () => {
      outcome = await page.evaluate(
        (url) => fetch(url, { credentials: 'include' }).then((r) => `read ${r.status}`, (e) => `blocked: ${e.name}`),
        get,
      );
    });
    refusedForOrigin('the credentialed GET', answer, { bodyKept: false });
    same('what the other page could read', outcome, 'blocked: TypeError');
  }],

  ['a no-cors POST from another origin is refused and writes nothing', async () => {
    const answer = await answerTo('POST', COLLECTION, () =>
      page.evaluate(
        ([url, body]) => fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body }).then((r) => r.type),
        [COLLECTION, bodyOf('e2e-from-fetch')],
      ),
    );
    refusedForOrigin('the no-cors POST', answer, { bodyKept: false });
    same('e2e-from-fetch missing', kubectlFails('get', 'configmap', 'e2e-from-fetch'), true);
  }],

  ['a POST with the CSRF token (cookies are shared across ports) fails its preflight', async () => {
    const token = await page.evaluate(() => document.cookie.match(/ks_csrf_\d+=([^;]+)/)?.[1] ?? '');
    if (token === '') {
      throw new Error('the other origin should see the CSRF cookie (same host, another port)');
    }
    let outcome;
    const answer = await answerTo('OPTIONS', COLLECTION, async () => {
      outcome = await page.evaluate(
        ([url, body, csrf]) =>
          fetch(url, { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body }).then(
            (r) => `sent ${r.status}`,
            (e) => `blocked: ${e.name}`,
          ),
        [COLLECTION, bodyOf('e2e-with-token'), token],
      );
    });
    refusedForOrigin('the preflight', answer, { bodyKept: false });
    same('what the other page got', outcome, 'blocked: TypeError');
    same('e2e-with-token missing', kubectlFails('get', 'configmap', 'e2e-with-token'), true);
  }],

  ['a form POST from another origin is refused and writes nothing', async () => {
    const answer = await answerTo('POST', COLLECTION, () => page.locator('#form').evaluate((form) => form.submit()));
    refusedForOrigin('the form POST', answer, { bodyKept: true });
    same('e2e-from-form missing', kubectlFails('get', 'configmap', 'e2e-from-form'), true);
    same('the ConfigMaps in default', kubectl('get', 'configmaps', '-o', 'jsonpath={.items[*].metadata.name}').split(' ').sort(), ['e2e-target', 'kube-root-ca.crt']);
    same('e2e-target unchanged', kubectl('get', 'configmap', 'e2e-target', '-o', 'jsonpath={.data}'), '{"k":"v"}');
  }],
];

await runScenarios('loopback', session, scenarios);

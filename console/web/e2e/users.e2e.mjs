// The web console for other users: a browser without a session gets the sign-in form, a wrong
// token the server's 401 inline, a service account's token a session as that account (named in
// the header), where RBAC answers as for it (a list refused in the server's words until a
// RoleBinding grants it); Sign out ends the session. Run by tests/integration/web_console_e2e.sh
// users.
import { CONFIGMAPS, WEB, consoleParts, eventually, kubectl, openBrowser, runScenarios, see, textOf } from './harness.mjs';

const ACCOUNT = 'e2e-reader';
const USER = `system:serviceaccount:default:${ACCOUNT}`;

const session = await openBrowser();
const { page } = session;
const parts = consoleParts(page);
const tokenBox = page.getByLabel('Bearer token');
const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });

await runScenarios('users', session, [
  [
    'without a session, the page offers the sign-in, and a wrong token is refused inline',
    async () => {
      await page.goto(`${WEB}${CONFIGMAPS}`);
      await see(tokenBox, 'the sign-in form');
      await tokenBox.fill('not-a-token');
      await signInButton.click();
      await see(page.locator('.sign-in-error').filter({ hasText: 'Unauthorized (Unauthorized, 401)' }), 'the 401 under the form');
    },
  ],
  [
    "a service account's token signs in as that account; the deep link is kept",
    async () => {
      kubectl('create', 'serviceaccount', ACCOUNT);
      kubectl('create', 'configmap', 'seen-by-reader', '--from-literal=a=1');
      await tokenBox.fill(kubectl('create', 'token', ACCOUNT));
      await signInButton.click();
      await see(page.locator('.user-name').filter({ hasText: USER }), `the header naming ${USER}`);
      await eventually('the deep link kept', () => page.url() === `${WEB}${CONFIGMAPS}`);
      const refusal = `configmaps is forbidden: User "${USER}" cannot list resource "configmaps" in API group "" in the namespace "default"`;
      await see(page.locator('.table-pane').getByText(refusal).first(), 'the list refused in the server’s words');
    },
  ],
  [
    'RBAC answers for the account: once bound to view, the table lists; Secrets stay refused',
    async () => {
      kubectl('create', 'rolebinding', `${ACCOUNT}-view`, '--clusterrole=view', `--serviceaccount=default:${ACCOUNT}`);
      // The table retries a refused list with a growing backoff; a reload asks at once.
      await page.reload();
      await see(parts.rowNamed('seen-by-reader'), 'the ConfigMap listed once the binding exists');
      await page.goto(`${WEB}#/r/core/v1/secrets?ns=default`);
      await see(page.locator('.table-pane').getByText(`secrets is forbidden: User "${USER}" cannot list resource "secrets"`).first(), 'Secrets refused');
    },
  ],
  [
    'Sign out ends the session: the sign-in form again, and the API refuses the old cookie',
    async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await see(tokenBox, 'the sign-in form after signing out');
      const status = await page.evaluate(async () => (await fetch('/api/v1/namespaces')).status);
      if (status !== 401) {
        throw new Error(`the API answered ${status} after sign-out, want 401`);
      }
      const text = await textOf(page.locator('.sign-in'));
      if (!text.includes('kubectl create token')) {
        throw new Error(`the sign-in form reads: ${text}`);
      }
    },
  ],
]);

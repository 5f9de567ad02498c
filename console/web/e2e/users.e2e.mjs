// The web console for other users: a browser without a session gets the sign-in form, a wrong
// token the server's 401 inline, a service account's token a session as that account (named in
// the header), where RBAC answers as for it (a list refused in the server's words until a
// RoleBinding grants it), and the console marks what its rules (SelfSubjectRulesReviews, of the
// namespace and of the cluster scope) do not allow: kinds it may not list in the tree (a
// cluster-scoped one too, which a RoleBinding cannot grant), writes disabled with the refusal
// the server would give; Sign out ends the session. Run by tests/integration/web_console_e2e.sh
// users.
import { CONFIGMAPS, WEB, consoleParts, eventually, kubectl, openBrowser, runScenarios, same, see, textOf } from './harness.mjs';

const ACCOUNT = 'e2e-reader';
const USER = `system:serviceaccount:default:${ACCOUNT}`;

const session = await openBrowser();
const { page } = session;
const parts = consoleParts(page);
const tokenBox = page.getByLabel('Bearer token');
const signInButton = page.getByRole('button', { name: 'Sign in', exact: true });
const treeItem = (kind) => page.locator('[role="tree"] [role="treeitem"][aria-level="2"]').filter({ hasText: new RegExp(`^${kind}`) });

// The refusal the server would give the account, in its words.
const refusal = (verb, resource) => `User "${USER}" cannot ${verb} resource "${resource}" in API group "" in the namespace "default"`;

// What an element's aria-describedby names (its accessible description), and its title.
async function describedBy(locator) {
  return locator.first().evaluate((element) => {
    const id = element.getAttribute('aria-describedby');
    return {
      description: id ? (document.getElementById(id)?.textContent ?? '') : '',
      title: element.getAttribute('title') ?? '',
    };
  });
}

// Waits for an element to be described by the refusal (its title too) or by nothing.
async function seeDescribed(locator, what, reason) {
  await eventually(`${what} described by ${reason === '' ? 'nothing' : `"${reason}"`}`, async () => {
    const { description, title } = await describedBy(locator);
    return description === reason && (reason === '' || title.endsWith(reason));
  });
}

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
    "the account's rules are shown: Secret marked as not listable, the writes disabled with the server's refusal",
    async () => {
      // The refusal the tree gives is the one the table met (the server's words).
      await see(page.locator('.table-pane').getByText(`secrets is forbidden: ${refusal('list', 'secrets')}`).first(), 'the list of Secrets refused');
      await seeDescribed(treeItem('Secret'), 'the tree item of Secret', refusal('list', 'secrets'));
      await see(treeItem('Secret').locator('.tree-denied'), 'the mark on Secret');
      await page.goto(`${WEB}${CONFIGMAPS}`);
      await see(parts.rowNamed('seen-by-reader'), 'the ConfigMap listed');
      await seeDescribed(treeItem('ConfigMap'), 'the tree item of ConfigMap', '');
      await see(treeItem('ConfigMap').locator('.tree-denied'), 'no mark on ConfigMap', 'hidden');
      // Namespaces are cluster-scoped: the RoleBinding in default grants no list of them, though
      // the role it binds names them. The mark says what the server answers.
      const clusterRefusal = `User "${USER}" cannot list resource "namespaces" in API group "" at the cluster scope`;
      await seeDescribed(treeItem('Namespace'), 'the tree item of Namespace', clusterRefusal);
      const listed = await page.evaluate(async () => {
        const answer = await fetch('/api/v1/namespaces');
        return { code: answer.status, message: (await answer.json()).message };
      });
      same('the list of Namespaces as the server answers it', listed, { code: 403, message: `namespaces is forbidden: ${clusterRefusal}` });
      const newButton = page.getByRole('button', { name: 'New ConfigMap', exact: true });
      await seeDescribed(newButton, 'New ConfigMap', refusal('create', 'configmaps'));
      if (!(await newButton.isDisabled())) {
        throw new Error('New ConfigMap is enabled for an account that may not create ConfigMaps');
      }
      await parts.openObject('seen-by-reader');
      for (const [name, verb] of [['Edit', 'patch'], ['Duplicate', 'create'], ['Delete', 'delete']]) {
        await seeDescribed(parts.action(name), name, refusal(verb, 'configmaps'));
        if (!(await parts.action(name).isDisabled())) {
          throw new Error(`${name} is enabled for an account that may not ${verb} ConfigMaps`);
        }
      }
      // Reading stays: the copy is offered.
      if (await parts.action('Copy as kubectl').isDisabled()) {
        throw new Error('Copy as kubectl is disabled');
      }
    },
  ],
  [
    'ConfigMaps of all namespaces, refused to the account, are listed in "default" instead',
    async () => {
      await page.goto(`${WEB}#/r/core/v1/configmaps`);
      const caption = page.locator('.table-pane').getByText('ConfigMap · core/v1 · namespace default (all namespaces refused)');
      await see(caption, 'the caption naming the namespace listed');
      await see(parts.rowNamed('seen-by-reader'), 'the ConfigMap of default listed');
      const title = await caption.first().getAttribute('title');
      const cause = `User "${USER}" cannot list resource "configmaps" in API group "" at the cluster scope`;
      if (!title?.includes(cause)) {
        throw new Error(`the caption's title reads: ${title}`);
      }
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

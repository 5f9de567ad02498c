// End-to-end test of the web console's writes (see web_console.e2e.mjs for how to run it): a
// label changed by keyboard in the YAML editor and applied, Replace and its 409 after a
// `kubectl edit`, invalid YAML (nothing sent), Duplicate and Create (the cursor and the URL
// follow), the copy buttons (read back from the clipboard and run), and a delete held by a
// finalizer until kubectl removes it.
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';
import {
  CONFIGMAPS, WEB, consoleParts, eventually, kubectl, kubectlApply, kubectlFails, kubectlField, kubectlWith, openBrowser, runScenarios, same, see, textOf,
} from './harness.mjs';

const session = await openBrowser({ permissions: ['clipboard-read', 'clipboard-write'] });
const { page } = session;
const { rowNamed, detail, action, outcome, editor, openObject, edit, typeLineAfter, retypeLine, signIn } = consoleParts(page);
const managedToggle = detail.getByLabel('managedFields');
const COLLECTION = `${WEB}api/v1/namespaces/default/configmaps`;

// The writes (anything but GET) the page sends to the API while `run` runs: "METHOD URL", and
// the body of each. The reviews the page asks for (what the user may do, refreshed every 30 s)
// are POSTs that store nothing, and are left out.
const REVIEWS = /^\/apis\/(authorization|authentication)\.k8s\.io\/v1\/self\w+reviews$/;
async function writesDuring(run) {
  const writes = [];
  const record = (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() !== 'GET' && path.startsWith('/api') && !REVIEWS.test(path)) {
      writes.push({ request: `${request.method()} ${request.url()}`, body: request.postData() });
    }
  };
  page.on('request', record);
  try {
    await run();
  } finally {
    page.off('request', record);
  }
  return writes;
}

// Clicks a copy button and waits for the page to say the text was copied and for the clipboard,
// emptied first, to hold it.
async function copyWith(name, what) {
  await page.evaluate(() => navigator.clipboard.writeText(''));
  await action(name).click();
  await see(detail.locator('.copied').filter({ hasText: `Copied ${what} to the clipboard.` }), `the note that ${what} was copied`);
  return eventually(`${what} on the clipboard`, () => page.evaluate(() => navigator.clipboard.readText()));
}

const scenarios = [
  ['a label changed by keyboard in the editor and applied (forced: kubectl owns it) is what kubectl sees', async () => {
    kubectl('create', 'configmap', 'e2e-typed', '--from-literal=k=v');
    kubectl('label', 'configmap', 'e2e-typed', 'tier=blue');
    await signIn(CONFIGMAPS);
    await see(rowNamed('e2e-typed'), 'the row e2e-typed');
    await openObject('e2e-typed');
    await see(managedToggle, 'the managedFields toggle of the object shown');
    await edit();
    await see(managedToggle, 'the managedFields toggle (no use in the editor)', 'hidden');
    await retypeLine('tier: blue', 'tier: green');
    await action('Apply').click();
    // kubectl label owns the label: the apply conflicts, the force takes it.
    await see(outcome.locator('li').filter({ hasText: '.metadata.labels.tier owned by kubectl-label' }), 'the conflict on the label');
    same('the label after the conflict', kubectlField('configmap', 'e2e-typed', '.metadata.labels.tier'), 'blue');
    await outcome.getByRole('button', { name: 'Force apply' }).click();
    await see(outcome.filter({ hasText: 'Applied (forced) as kube-sandbox-web' }), 'the forced apply succeeded');
    await eventually('kubectl to see the label tier=green', () => kubectlField('configmap', 'e2e-typed', '.metadata.labels.tier') === 'green');
    await action('Cancel').click();
    await see(detail.locator('pre.yaml').filter({ hasText: 'tier: green' }), 'the new label in the YAML shown');
    await see(managedToggle, 'the managedFields toggle once the editor is closed');
  }],

  ['Replace writes at the version read; after a kubectl edit it fails with 409 in the server\'s words', async () => {
    kubectl('create', 'configmap', 'e2e-replace', '--from-literal=colour=red');
    await see(rowNamed('e2e-replace'), 'the row e2e-replace');
    await openObject('e2e-replace');
    const loaded = kubectlField('configmap', 'e2e-replace', '.metadata.resourceVersion');
    await edit();
    await retypeLine('colour: red', 'colour: amber');
    const writes = await writesDuring(async () => {
      await action('Replace').click();
      await see(outcome.filter({ hasText: `Replaced (was resourceVersion ${loaded})` }), 'the replace at the version loaded');
    });
    same('the replace\'s requests', writes.map((w) => w.request), [`PUT ${COLLECTION}/e2e-replace?fieldManager=kube-sandbox-web`]);
    same('the resourceVersion the replace sent', JSON.parse(writes[0].body).metadata.resourceVersion, loaded);
    same('the colour kubectl sees', kubectlField('configmap', 'e2e-replace', '.data.colour'), 'amber');
    const written = kubectlField('configmap', 'e2e-replace', '.metadata.resourceVersion');
    await see(outcome.filter({ hasText: `resourceVersion ${written}.` }), 'the version written');

    kubectlWith({ KUBE_EDITOR: 'sed -i -e s/colour:.amber/colour:\\ violet/' }, 'edit', 'configmap', 'e2e-replace');
    same('the colour after kubectl edit', kubectlField('configmap', 'e2e-replace', '.data.colour'), 'violet');
    await retypeLine('colour: amber', 'colour: indigo');
    const refused = await writesDuring(async () => {
      await action('Replace').click();
      await see(outcome.filter({ hasText: 'the object has been modified' }), 'the 409 in the server\'s words');
    });
    same('the resourceVersion the second replace sent (its own write\'s)', refused.map((w) => JSON.parse(w.body).metadata.resourceVersion), [written]);
    const said = await textOf(outcome);
    if (!said.includes('Conflict') || !said.includes('409')) {
      throw new Error(`the outcome should name the Conflict (409): ${said}`);
    }
    same('the colour after the refused replace', kubectlField('configmap', 'e2e-replace', '.data.colour'), 'violet');
    await action('Cancel').click();
  }],

  ['invalid YAML is shown inline with its line, and nothing is sent', async () => {
    await openObject('e2e-replace');
    const version = kubectlField('configmap', 'e2e-replace', '.metadata.resourceVersion');
    await edit();
    await retypeLine('colour: violet', 'colour: [violet');
    const problem = outcome.getByRole('button', { name: /^line \d+, column \d+$/ }).first();
    const writes = await writesDuring(async () => {
      await action('Apply').click();
      await see(outcome.filter({ hasText: 'The YAML cannot be sent' }), 'the YAML problems');
      await action('Replace').click();
      await see(problem, 'a problem with its line and column');
    });
    same('the writes sent with invalid YAML', writes, []);
    same('the resourceVersion after invalid YAML', kubectlField('configmap', 'e2e-replace', '.metadata.resourceVersion'), version);
    const line = (await problem.innerText()).match(/^line (\d+)/)[1];
    await problem.click();
    await see(detail.locator('.yaml-editor .cm-activeLineGutter').filter({ hasText: new RegExp(`^${line}$`) }), `the cursor on line ${line}`);
    await action('Cancel').click();
  }],

  ['Duplicate creates a copy under a new name (without kubectl apply\'s record of the original); the cursor and the URL move to it', async () => {
    // Applied by kubectl: its last-applied-configuration annotation names it, not the copy.
    kubectlApply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e2e-original', namespace: 'default' }, data: { shape: 'circle', size: '3' } });
    await see(rowNamed('e2e-original'), 'the row e2e-original');
    await openObject('e2e-original');
    await action('Duplicate').click();
    await see(detail.getByRole('heading', { name: 'New ConfigMap' }), 'the editor on a new ConfigMap');
    await see(editor.locator('.cm-line').filter({ hasText: 'name: e2e-original-copy' }), 'the copy\'s name');
    await action('Create').click();
    await see(outcome.filter({ hasText: 'Created ConfigMap e2e-original-copy' }), 'the create succeeded');
    same('the data of the copy', kubectl('get', 'configmap', 'e2e-original-copy', '-o', 'jsonpath={.data}'), kubectl('get', 'configmap', 'e2e-original', '-o', 'jsonpath={.data}'));
    same('the annotations of the copy', kubectlField('configmap', 'e2e-original-copy', '.metadata.annotations'), '');
    await eventually('the URL to name the copy', () => decodeURIComponent(page.url()).includes('obj=e2e-original-copy'));
    await see(rowNamed('e2e-original-copy').and(page.locator('[aria-selected="true"]')), 'the cursor on the row of the copy');
    await action('Cancel').click();
    await see(detail.locator('pre.yaml').filter({ hasText: 'name: e2e-original-copy' }), 'the copy shown once the editor is closed');
  }],

  ['the copy buttons put kubectl commands and YAML that work on the clipboard', async () => {
    await openObject('e2e-original');
    const get = await copyWith('Copy as kubectl', 'the kubectl command');
    same('the kubectl command copied', get, 'kubectl get configmaps e2e-original -n default -o yaml');
    const fromCommand = parse(execFileSync('sh', ['-c', get], { encoding: 'utf8' }));
    same('the data the copied command prints', fromCommand.data, { shape: 'circle', size: '3' });

    const yamlText = await copyWith('Copy YAML', 'the YAML');
    const copied = parse(yamlText);
    same('the name in the YAML copied', copied.metadata.name, 'e2e-original');
    same('the data in the YAML copied', copied.data, { shape: 'circle', size: '3' });
    same('managedFields in the YAML copied', copied.metadata.managedFields, undefined);

    await edit();
    // A key of its own (the others are kubectl's: changing one would conflict).
    await typeLineAfter('data:', 'fill: red');
    const apply = await copyWith('Copy as kubectl apply', 'the kubectl apply command');
    const [command, ...rest] = apply.split('\n');
    same('the kubectl apply command', command, "kubectl apply --server-side --field-manager=kube-sandbox-web -f - <<'EOF'");
    same('the data of the YAML in the command', parse(rest.join('\n').replace(/^EOF\n$/m, '')).data, { fill: 'red', shape: 'circle', size: '3' });
    const edited = parse(await copyWith('Copy YAML', 'the YAML'));
    same('the data of the YAML copied from the editor', edited.data, { fill: 'red', shape: 'circle', size: '3' });
    execFileSync('sh', ['-c', apply], { stdio: ['ignore', 'ignore', 'pipe'] });
    same('the fill after running the copied apply', kubectlField('configmap', 'e2e-original', '.data.fill'), 'red');
    await action('Cancel').click();
  }],

  ['a delete held by a finalizer names it; the object stays until kubectl removes it', async () => {
    kubectlApply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e2e-held', namespace: 'default', finalizers: ['example.com/hold'] }, data: { k: 'v' } });
    await see(rowNamed('e2e-held'), 'the row e2e-held');
    await openObject('e2e-held');
    await action('Delete').click();
    const confirm = page.getByRole('alertdialog', { name: 'Confirm the delete' });
    await see(confirm.filter({ hasText: 'metadata.finalizers: example.com/hold' }), 'the confirmation naming the finalizer');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await see(outcome.filter({ hasText: 'Terminating until its finalizers are removed' }), 'the object held');
    await eventually('kubectl to see a deletionTimestamp', () => kubectlField('configmap', 'e2e-held', '.metadata.deletionTimestamp') !== '');
    await see(detail.locator('pre.yaml').filter({ hasText: 'deletionTimestamp:' }), 'the deletionTimestamp in the YAML shown');
    await see(rowNamed('e2e-held'), 'the row e2e-held while it is held');
    // Opened again, the object still says what holds it, and offers no second delete.
    await openObject('e2e-typed');
    await openObject('e2e-held');
    const since = kubectlField('configmap', 'e2e-held', '.metadata.deletionTimestamp');
    await see(detail.getByRole('status').filter({ hasText: `Terminating since ${since}, held by metadata.finalizers: example.com/hold.` }), 'the note on what holds e2e-held');
    await see(action('Delete'), 'the Delete button of an object Terminating', 'hidden');
    kubectl('patch', 'configmap', 'e2e-held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
    await see(rowNamed('e2e-held'), 'the row e2e-held', 'hidden');
    await see(detail.getByText('This object was deleted; its last version is shown.'), 'the note that the object was deleted');
    await eventually('kubectl to see e2e-held gone', () => kubectlFails('get', 'configmap', 'e2e-held'));
  }],
];

await runScenarios('editing', session, scenarios);

// What the page's user may do, as advice for the UI: two SelfSubjectRulesReviews, one for the
// namespace in use (the one shown, or "default" for all namespaces, as the desktop console asks)
// and one for the cluster scope (CLUSTER_SCOPE), asked again every RULES_REFRESH_MS and at once
// when the namespace changes. One round at a time: a change cancels the one in flight, and one
// that does not answer in RULES_TIMEOUT_MS is given up. A failed or refused review leaves the
// answer unknown (every action stays enabled; the server decides each request). The last answers
// of a few namespaces are kept, so going back to one is not unknown for a moment.
import type { ApiClient } from './api_client';
import { AccessRules, denialText, type RuleTarget } from './access_rules';
import { CancelToken } from './cancel';
import type { Clock } from './clock';
import { ACCEPT_JSON } from './http';
import { Signal } from './signal';

export const SELF_SUBJECT_RULES_REVIEWS = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
export const RULES_REFRESH_MS = 30_000;
export const RULES_TIMEOUT_MS = 10_000;
// The namespaces whose answers are kept.
export const RULES_KEPT = 16;
// The namespace asked about when all namespaces are shown.
export const FALLBACK_NAMESPACE = 'default';
// What a review is asked for to learn the cluster-wide rules: those that hold for cluster-scoped
// resources and in all namespaces at once. A review needs a namespace and answers with the rules
// of the user's ClusterRoleBindings plus those of the RoleBindings in that namespace; asked for a
// name no namespace can have (namespace names are DNS labels), it answers with the first alone.
export const CLUSTER_SCOPE = '(cluster scope)';

// Whether an action may be offered; when not, the refusal the server would give, in its words.
export type Permission = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

const ALLOWED: Permission = { allowed: true };

export class AccessAdvice {
  readonly changed = new Signal();
  private readonly known = new Map<string, AccessRules>();
  private namespaceValue: string | undefined;
  private cancel: CancelToken | undefined;
  private stopTimer: (() => void) | undefined;
  private running = false;

  constructor(
    private readonly client: ApiClient,
    private readonly clock: Clock,
    private readonly username: string,
  ) {}

  // The namespace the reviews are asked for; undefined before the first.
  get namespace(): string | undefined {
    return this.namespaceValue;
  }

  // Asks about this namespace ("" for all namespaces) from now on; at once when it is another
  // than the one asked about, or when nothing is asked yet.
  follow(shown: string): void {
    const namespace = shown === '' ? FALLBACK_NAMESPACE : shown;
    if (this.running && namespace === this.namespaceValue) {
      return;
    }
    this.halt();
    this.namespaceValue = namespace;
    this.running = true;
    void this.ask(namespace);
  }

  stop(): void {
    this.halt();
    this.running = false;
  }

  // The rules last answered for a namespace, when known.
  rules(namespace: string): AccessRules | undefined {
    return this.known.get(namespace);
  }

  // May the user `verb` the resource in `namespace` ("" for all namespaces, or a cluster-scoped
  // resource: the cluster-wide rules decide), on the object `name` ("" for the collection)?
  may(verb: string, target: RuleTarget, namespace: string, name = ''): Permission {
    const inNamespace = target.namespaced && namespace !== '';
    const rules = this.known.get(inNamespace ? namespace : CLUSTER_SCOPE);
    if (!rules || rules.check(verb, target.group, target.resource, name) !== 'denied') {
      return ALLOWED;
    }
    return { allowed: false, reason: denialText(this.username, verb, target, inNamespace ? namespace : '') };
  }

  private halt(): void {
    this.cancel?.cancel();
    this.cancel = undefined;
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  // One round: the namespace's review and the cluster scope's, side by side.
  private async ask(namespace: string): Promise<void> {
    const cancel = new CancelToken();
    this.cancel = cancel;
    const giveUp = this.clock.setTimer(() => cancel.cancel(), RULES_TIMEOUT_MS);
    const answers = await Promise.all([this.review(namespace, cancel), this.review(CLUSTER_SCOPE, cancel)]);
    giveUp();
    if (this.cancel !== cancel) {
      return;
    }
    this.cancel = undefined;
    const changed = [this.remember(namespace, answers[0]), this.remember(CLUSTER_SCOPE, answers[1])];
    if (changed.includes(true)) {
      this.changed.emit();
    }
    this.stopTimer = this.clock.setTimer(() => {
      this.stopTimer = undefined;
      void this.ask(namespace);
    }, RULES_REFRESH_MS);
  }

  // The rules one review answers; undefined when refused, unreachable or given up.
  private async review(namespace: string, cancel: CancelToken): Promise<AccessRules | undefined> {
    const body = JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace } });
    try {
      const review = await this.client.send({ method: 'POST', path: SELF_SUBJECT_RULES_REVIEWS, accept: ACCEPT_JSON, contentType: 'application/json', body, cancel });
      const parsed = AccessRules.parse(review);
      return 'rules' in parsed ? parsed.rules : undefined;
    } catch {
      return undefined;
    }
  }

  // Keeps the answer for a namespace (the most recent last); whether it is another than before.
  private remember(namespace: string, rules: AccessRules | undefined): boolean {
    const before = this.known.get(namespace);
    this.known.delete(namespace);
    if (rules) {
      this.known.set(namespace, rules);
      while (this.known.size > RULES_KEPT) {
        const oldest = this.known.keys().next().value;
        if (oldest === undefined) {
          break;
        }
        this.known.delete(oldest);
      }
    }
    return before !== rules;
  }
}

// What the API server says the page's user may do in one namespace: the resource rules of a
// SelfSubjectRulesReview (its answer to POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews
// with spec.namespace), which hold the rules of the user's RoleBindings there and of their
// ClusterRoleBindings. The console marks and disables what they do not allow, in the words the
// server would refuse it with.
//
// A rule allows a request when its verbs, apiGroups and resources each name the request's value
// or "*", and its resourceNames are absent or name the object (a request on a collection, list
// or create, is allowed only by a rule without resourceNames). When no rule allows it and the
// review is incomplete (an authorizer could not list its rules), the answer is unknown, and the
// console lets the user try: the server decides every request anyway.
import { arrayField, booleanField, field, isObject, stringField } from './json';

export type Access = 'allowed' | 'denied' | 'unknown';

export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

// What a rule is checked against: a resource (no subresource) of a group, and whether its
// objects live in namespaces.
export interface RuleTarget {
  readonly group: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

export type ParsedRules = { readonly rules: AccessRules } | { readonly error: string };

// The strings of a list that may be absent; undefined when present and not all strings.
function stringList(value: unknown): string[] | undefined {
  if (value === undefined || value === null) {
    return [];
  }
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    return undefined;
  }
  return value as string[];
}

function names(values: readonly string[], wanted: string): boolean {
  return values.some((value) => value === '*' || value === wanted);
}

export class AccessRules {
  private constructor(
    readonly rules: readonly ResourceRule[],
    readonly incomplete: boolean,
    readonly evaluationError: string,
  ) {}

  // Rules that allow everything (what an admin's review says, for tests and defaults).
  static allowAll(): AccessRules {
    return new AccessRules([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }], false, '');
  }

  // The rules of a review as the server answered it; an error when it has no status or a rule
  // is not the shape the API defines (nothing of it is trusted then).
  static parse(review: unknown): ParsedRules {
    const status = field(review, 'status');
    if (!isObject(status)) {
      return { error: 'SelfSubjectRulesReview: status is missing' };
    }
    const raw = status['resourceRules'];
    if (raw !== undefined && raw !== null && !Array.isArray(raw)) {
      return { error: 'SelfSubjectRulesReview: status.resourceRules is not a list' };
    }
    const rules: ResourceRule[] = [];
    for (const [index, item] of (arrayField(status, 'resourceRules') ?? []).entries()) {
      const verbs = stringList(field(item, 'verbs'));
      const apiGroups = stringList(field(item, 'apiGroups'));
      const resources = stringList(field(item, 'resources'));
      const resourceNames = stringList(field(item, 'resourceNames'));
      if (!isObject(item) || !verbs || !apiGroups || !resources || !resourceNames) {
        return { error: `SelfSubjectRulesReview: status.resourceRules[${index}] is malformed` };
      }
      rules.push({ verbs, apiGroups, resources, resourceNames });
    }
    const rulesOf = new AccessRules(rules, booleanField(status, 'incomplete') ?? false, stringField(status, 'evaluationError') ?? '');
    return { rules: rulesOf };
  }

  // May the user `verb` the resource, on the object `name` ("" for the collection)?
  check(verb: string, group: string, resource: string, name = ''): Access {
    const allowed = this.rules.some(
      (rule) =>
        names(rule.verbs, verb) &&
        names(rule.apiGroups, group) &&
        names(rule.resources, resource) &&
        (rule.resourceNames.length === 0 || (name !== '' && rule.resourceNames.includes(name))),
    );
    if (allowed) {
      return 'allowed';
    }
    return this.incomplete ? 'unknown' : 'denied';
  }
}

// The server's wording of an RBAC refusal, so that a disabled action reads as the refusal it
// would meet: in the namespace for a namespaced resource, else at the cluster scope.
export function denialText(username: string, verb: string, target: RuleTarget, namespace: string): string {
  const who = username === '' ? '?' : username;
  const text = `User "${who}" cannot ${verb} resource "${target.resource}" in API group "${target.group}"`;
  return target.namespaced && namespace !== '' ? `${text} in the namespace "${namespace}"` : `${text} at the cluster scope`;
}

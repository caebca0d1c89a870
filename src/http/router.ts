// A small path router: static segments and `:param` segments, matched segment by segment.
// It knows which methods a path has, so an unknown method on a known path is a 405 with Allow.
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

interface Node<R> {
  statics: Map<string, Node<R>>;
  param?: { name: string; node: Node<R> };
  routes: Map<Method, R>;
}

export type Match<R> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: Method[] }
  | { kind: 'not_found' };

const newNode = <R>(): Node<R> => ({ statics: new Map(), routes: new Map() });

export class Router<R> {
  private readonly root: Node<R> = newNode();

  add(method: Method, path: string, route: R): void {
    let node = this.root;
    for (const segment of path.split('/').filter(Boolean)) {
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (node.param && node.param.name !== name) throw new Error(`conflicting params at ${path}`);
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = newNode()));
        node = next;
      }
    }
    if (node.routes.has(method)) throw new Error(`duplicate route ${method} ${path}`);
    node.routes.set(method, route);
  }

  match(method: string, path: string): Match<R> {
    const params: Record<string, string> = {};
    let node: Node<R> | undefined = this.root;
    for (const segment of path.split('/').filter(Boolean)) {
      const next: Node<R> | undefined = node.statics.get(segment);
      if (next) {
        node = next;
      } else if (node.param) {
        params[node.param.name] = safeDecode(segment);
        node = node.param.node;
      } else {
        return { kind: 'not_found' };
      }
    }
    if (node.routes.size === 0) return { kind: 'not_found' };
    const route = node.routes.get(method as Method);
    if (route) return { kind: 'found', route, params };
    return { kind: 'method_not_allowed', allow: [...node.routes.keys()] };
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

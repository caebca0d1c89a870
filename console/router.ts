// Hash routes (`#/search`, `#/catalogue/products`): the server answers one page, /console, and a
// reload keeps the place. Each route's query part (`#/search?q=lamp`) is its own state.
import { useEffect, useState } from 'preact/hooks';

export interface Location {
  /** Path segments after `#/`, e.g. ['catalogue', 'products']. */
  path: string[];
  params: URLSearchParams;
}

const parse = (): Location => {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
};

export function useLocation(): Location {
  const [at, setAt] = useState(parse);
  useEffect(() => {
    const changed = () => setAt(parse());
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return at;
}

/** A hash link's href. */
export const href = (path: string, params?: Record<string, string | undefined>) => {
  const query = new URLSearchParams(Object.entries(params ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  return `#/${path}${query.size ? `?${query}` : ''}`;
};

export const navigate = (path: string, params?: Record<string, string | undefined>) => (location.hash = href(path, params));

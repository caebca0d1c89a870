// Categories: the tenant's category tree (`?tree=true`); with catalog:write also create (under a
// parent or at the top), rename and delete. A category with children or knowledge entries cannot be
// deleted: the API's 409 is shown as it comes.
import { useState } from 'preact/hooks';
import { api, get } from '../../api.js';
import { useSignedIn } from '../../context.js';
import { ErrorBox, Field, Loading, Notice, useAsync, useListActions, useSubmit } from '../../components/ui.js';
import type { Category, CategoryCreate, CategoryTreeNode, CategoryUpdate } from '../../types.js';

/** The tree in display order, each node with its depth (for the parent picker). */
const flatten = (nodes: CategoryTreeNode[], depth = 0): { node: CategoryTreeNode; depth: number }[] =>
  nodes.flatMap((node) => [{ node, depth }, ...flatten(node.children, depth + 1)]);

interface TreeActions {
  writable: boolean;
  renaming: string | null;
  startRename: (node: CategoryTreeNode) => void;
  rename: (node: CategoryTreeNode, name: string) => void;
  cancelRename: () => void;
  remove: (node: CategoryTreeNode) => void;
}

export function CategoriesTab() {
  const { can } = useSignedIn();
  const writable = can('catalog:write');
  const tree = useAsync(() => get<CategoryTreeNode[]>('/api/knowledge/categories', { tree: true }), []);
  const [renaming, setRenaming] = useState<string | null>(null);
  const { error, notice, act, report } = useListActions(tree.reload);
  const actions: TreeActions = {
    writable,
    renaming,
    startRename: (node) => setRenaming(node.id),
    cancelRename: () => setRenaming(null),
    rename: (node, name) =>
      void act(() => api('PUT', `/api/knowledge/categories/${node.id}`, { body: { name } satisfies CategoryUpdate }), `Renamed to ${name}.`)
        .then((ok) => ok && setRenaming(null)),
    remove: (node) => {
      if (confirm(`Delete the category ${node.name}?`)) void act(() => api('DELETE', `/api/knowledge/categories/${node.id}`), `Category ${node.name} deleted.`);
    },
  };

  return (
    <section class="categories">
      <ErrorBox error={tree.error ?? error} />
      {notice ? <Notice>{notice}</Notice> : null}
      <div class={writable ? 'category-layout' : ''}>
        <div class="card tree" aria-label="Category tree">
          {tree.data?.length === 0 ? <p class="muted">No category yet.</p> : null}
          {tree.data?.length ? <CategoryList nodes={tree.data} actions={actions} /> : null}
          <Loading when={tree.loading} />
        </div>
        {writable ? (
          <NewCategory tree={tree.data ?? []} onCreated={(c) => report(`Category ${c.name} created.`)} />
        ) : null}
      </div>
      {writable ? null : <p class="muted small">Read-only: changing categories needs the catalog:write scope.</p>}
    </section>
  );
}

function CategoryList({ nodes, actions }: { nodes: CategoryTreeNode[]; actions: TreeActions }) {
  return (
    <ul>
      {nodes.map((node) => <CategoryItem key={node.id} node={node} actions={actions} />)}
    </ul>
  );
}

function CategoryItem({ node, actions }: { node: CategoryTreeNode; actions: TreeActions }) {
  const [name, setName] = useState(node.name);
  const editing = actions.renaming === node.id;
  return (
    <li data-category={node.name}>
      <div class="node">
        {editing ? (
          <form class="rename" onSubmit={(e) => { e.preventDefault(); actions.rename(node, name.trim()); }}>
            <input name="rename" aria-label={`New name of ${node.name}`} value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={200} />
            <button type="submit" class="link">Save</button>
            <button type="button" class="link" onClick={() => { setName(node.name); actions.cancelRename(); }}>Cancel</button>
          </form>
        ) : (
          <>
            <span class="name">{node.name}</span>
            {node.description ? <span class="muted small"> — {node.description}</span> : null}
            {node.children.length ? <span class="muted small"> ({node.children.length})</span> : null}
            {actions.writable ? (
              <span class="node-actions">
                <button type="button" class="link" onClick={() => { setName(node.name); actions.startRename(node); }}>Rename</button>
                <button type="button" class="link danger" onClick={() => actions.remove(node)}>Delete</button>
              </span>
            ) : null}
          </>
        )}
      </div>
      {node.children.length ? <CategoryList nodes={node.children} actions={actions} /> : null}
    </li>
  );
}

function NewCategory({ tree, onCreated }: { tree: CategoryTreeNode[]; onCreated: (category: Category) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [parent, setParent] = useState('');
  const { busy, error, run } = useSubmit();
  const create = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const body: CategoryCreate = { name: name.trim(), description: description.trim() || null, parent_id: parent || null };
      const created = await api<Category>('POST', '/api/knowledge/categories', { body });
      setName('');
      setDescription('');
      onCreated(created.body);
    });
  };
  return (
    <form class="card" onSubmit={create} aria-label="New category">
      <h2>New category</h2>
      <Field label="Name">
        <input name="category_name" value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={200} />
      </Field>
      <Field label="Parent">
        <select name="parent" value={parent} onChange={(e) => setParent(e.currentTarget.value)}>
          <option value="">— top level —</option>
          {flatten(tree).map(({ node, depth }) => <option key={node.id} value={node.id}>{`${'\u00a0\u00a0\u00a0'.repeat(depth)}${node.name}`}</option>)}
        </select>
      </Field>
      <Field label="Description">
        <input name="description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </Field>
      <ErrorBox error={error} />
      <button type="submit" class="primary" disabled={busy}>Create category</button>
    </form>
  );
}

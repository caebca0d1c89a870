// Product variants (linked by parent_external_id) and translation groups across the sites of a tenant.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { TenantFixture } from '../../helpers/stack.js';
import { stack, useStack, PRODUCTS, UUID_V4, createSite, productBody, upsert, getProduct, listProducts } from './fixtures.js';

useStack();

// ---- variants ---------------------------------------------------------------------------------

describe('variants', () => {
  let t: TenantFixture;
  let site: any;
  let other: any;
  before(async () => {
    t = await stack.tenant();
    site = await createSite(t);
    other = await createSite(t);
  });

  test('a variant posted before its parent links once the parent arrives', async () => {
    const variant = await upsert(t, site.slug, productBody({ external_id: 'V1', parent_external_id: 'P', is_variant: true }), 'created');
    assert.equal(variant.parent_product_id, null);
    assert.equal(variant.is_variant, true);
    assert.equal(variant.is_parent, false);
    assert.equal((await getProduct(t, variant.id)).parent_product_id, null);

    const parent = await upsert(t, site.slug, productBody({ external_id: 'P', is_parent: true }), 'created');
    assert.equal(parent.is_parent, true);
    assert.equal(parent.is_variant, false);
    assert.equal(parent.parent_product_id, null);

    assert.equal((await getProduct(t, variant.id)).parent_product_id, parent.id);
    const listed = (await listProducts(t, `?site_id=${site.id}`)).items.find((p) => p.id === variant.id);
    assert.equal(listed.parent_product_id, parent.id);

    // A variant posted after its parent links at once.
    const late = await upsert(t, site.slug, productBody({ external_id: 'V2', parent_external_id: 'P', is_variant: true }), 'created');
    assert.equal(late.parent_product_id, parent.id);

    // parent_external_id is never echoed.
    assert.ok(!('parent_external_id' in late));

    // Once the parent is gone the link is gone too.
    assert.equal((await t.request('DELETE', `${PRODUCTS}/${parent.id}`)).status, 204);
    assert.equal((await getProduct(t, variant.id)).parent_product_id, null);
  });

  test('is_parent and is_variant are stored as given, together too', async () => {
    const both = await upsert(t, site.slug, productBody({ is_parent: true, is_variant: true }), 'created');
    assert.deepEqual([both.is_parent, both.is_variant], [true, true]);
    const none = await upsert(t, site.slug, productBody({ is_parent: false, is_variant: false }), 'created');
    assert.deepEqual([none.is_parent, none.is_variant], [false, false]);
  });

  test('the parent is looked up in the variant\'s own site only', async () => {
    const foreignParent = await upsert(t, other.slug, productBody({ external_id: 'Q', is_parent: true }), 'created');
    const variant = await upsert(t, site.slug, productBody({ external_id: 'VQ', parent_external_id: 'Q', is_variant: true }), 'created');
    assert.equal(variant.parent_product_id, null);
    assert.equal((await getProduct(t, variant.id)).parent_product_id, null);
    // The parent in the other site links its own variants.
    const ownVariant = await upsert(t, other.slug, productBody({ external_id: 'VQ', parent_external_id: 'Q', is_variant: true }), 'created');
    assert.equal(ownVariant.parent_product_id, foreignParent.id);
  });

  test('changing parent_external_id relinks; dropping it unlinks', async () => {
    const p1 = await upsert(t, site.slug, productBody({ external_id: 'R1', is_parent: true }), 'created');
    const p2 = await upsert(t, site.slug, productBody({ external_id: 'R2', is_parent: true }), 'created');
    const v = productBody({ external_id: 'RV', is_variant: true });
    assert.equal((await upsert(t, site.slug, { ...v, parent_external_id: 'R1' }, 'created')).parent_product_id, p1.id);
    assert.equal((await upsert(t, site.slug, { ...v, parent_external_id: 'R2' }, 'updated')).parent_product_id, p2.id);
    assert.equal((await upsert(t, site.slug, v, 'updated')).parent_product_id, null);
  });
});

// ---- translation groups -----------------------------------------------------------------------

describe('translation groups', () => {
  test('one external_id across the sites of a tenant is one group; other ids and other tenants are other groups', async () => {
    const t = await stack.tenant();
    const u = await stack.tenant();
    const en = await createSite(t, { language: 'en' });
    const de = await createSite(t, { language: 'de' });
    const fr = await createSite(t, { language: 'fr' });
    const foreign = await createSite(u);

    const a = await upsert(t, en.slug, productBody({ external_id: 'ART-1', title: 'Shoe' }), 'created');
    const b = await upsert(t, de.slug, productBody({ external_id: 'ART-1', title: 'Schuh', language: 'de' }), 'created');
    const c = await upsert(t, fr.slug, productBody({ external_id: 'ART-1', title: 'Chaussure', language: 'fr' }), 'created');
    const d = await upsert(t, en.slug, productBody({ external_id: 'ART-2' }), 'created');
    const e = await upsert(u, foreign.slug, productBody({ external_id: 'ART-1' }), 'created');

    assert.notEqual(a.id, b.id);
    for (const p of [a, d, e]) assert.match(p.translation_group_id, UUID_V4);
    assert.equal(b.translation_group_id, a.translation_group_id);
    assert.equal(c.translation_group_id, a.translation_group_id);
    assert.notEqual(d.translation_group_id, a.translation_group_id);
    assert.notEqual(e.translation_group_id, a.translation_group_id);

    // Updates keep the group.
    const a2 = await upsert(t, en.slug, productBody({ external_id: 'ART-1', title: 'Shoe v2' }), 'updated');
    assert.equal(a2.translation_group_id, a.translation_group_id);
    assert.equal((await getProduct(t, b.id)).translation_group_id, a.translation_group_id);
  });

  test('concurrent first pushes of one external_id into several sites agree on one group', async () => {
    const t = await stack.tenant();
    const sites = await Promise.all(Array.from({ length: 6 }, () => createSite(t)));
    const created = await Promise.all(sites.map((s) => upsert(t, s.slug, productBody({ external_id: 'SAME' }), 'created')));
    assert.equal(new Set(created.map((p) => p.translation_group_id)).size, 1);
  });
});

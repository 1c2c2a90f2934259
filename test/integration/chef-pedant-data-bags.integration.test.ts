/**
 * oc-chef-pedant, ported: data bags on the organization routes.
 * Source: chef/chef-server oc-chef-pedant/spec/api/data_bag/complete_endpoint_spec.rb ("Data Bag API endpoint"),
 * helpers lib/pedant/rspec/data_bag_util.rb. Pedant assumes an empty organization and acts as the org admin:
 * `seed: false`, as 'admin'. The unported spec itself runs in `npm run test:chef` (the pedant suite).
 * respects_maximum_payload_size is covered in data-bags.integration.test.ts (the limit is MAX_BODY_BYTES).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useChefHarness } from '@/test/chef-harness';
import { uniq } from '@/test/chef-pedant-helpers';

const chef = useChefHarness({ seed: false });

const as = 'admin' as const;
const url = (p: string) => `${chef.orgUrl}/${p}`;
const newBag = (name: string) => ({ name, json_class: 'Chef::DataBag', chef_type: 'data_bag' });
const newItem = (id: string) => ({ id, foo: 'bar', baz: 'quux' });
const req = (method: string, path: string, body?: unknown) => chef.request(method, path, { as, body });

async function resetBags(): Promise<void> {
  const list = await req('GET', 'data');
  for (const name of Object.keys(list.json ?? {})) await req('DELETE', `data/${encodeURIComponent(name)}`);
}

beforeEach(resetBags);

describe('with no data bags', () => {
  // pedant: "with no data bags" "a request to /data" "GET" "returns an empty list of data bags"
  it('GET /data answers {}', async () => {
    const r = await req('GET', 'data');
    expect(r.status).toBe(200);
    expect(r.json).toStrictEqual({});
  });

  // pedant: "POST" "with a canonical payload" / "with a valid name" (each name) / "missing certain keys" / "with just a name" / incorrect chef_type, json_class
  it.each(['pedant', 'pedant-bag', 'pedant_bag', 'pedant_bag-foo', '1234567890', 'pedant99', 'pedant:with:colons', 'pedant.with.dots'])('POST /data creates bag %s: 201 with its uri, then an empty bag', async (name) => {
    const r = await req('POST', 'data', newBag(name));
    expect(r.status).toBe(201);
    expect(r.json).toStrictEqual({ uri: url(`data/${name}`) });
    const g = await req('GET', `data/${name}`);
    expect(g.status).toBe(200);
    expect(g.json).toStrictEqual({});
  });

  it.each([
    ['without json_class', { name: 'b1', chef_type: 'data_bag' }],
    ['without chef_type', { name: 'b2', json_class: 'Chef::DataBag' }],
    ['with just a name', { name: 'b3' }],
    ['with an incorrect chef_type', { name: 'b4', json_class: 'Chef::DataBag', chef_type: 'node' }],
    ['with an incorrect json_class', { name: 'b5', json_class: 'Chef::Node', chef_type: 'data_bag' }],
  ])('POST /data %s: 201', async (_what, body) => {
    const r = await req('POST', 'data', body);
    expect(r.status).toBe(201);
    expect(r.json).toStrictEqual({ uri: url(`data/${body.name}`) });
  });

  // pedant: "invalid requests of various types to create a data bag" "with an invalid name" / "without a name"
  it.each(['pedant_badName!!$$$$_oh_very+bad', 'pedant-does-not-like-punctuation!!!!'])("POST /data with the name '%s': 400 \"Field 'name' invalid\", nothing created", async (name) => {
    const r = await req('POST', 'data', newBag(name));
    expect(r.status).toBe(400);
    expect(r.json.error).toStrictEqual(["Field 'name' invalid"]);
    expect((await req('GET', 'data')).json).toStrictEqual({});
  });

  it("POST /data without a name: 400 \"Field 'name' missing\"", async () => {
    const r = await req('POST', 'data', { id: 'x' });
    expect(r.status).toBe(400);
    expect(r.json.error).toStrictEqual(["Field 'name' missing"]);
  });

  // pedant: "PUT" / "DELETE" on /data "is not allowed"
  it('PUT and DELETE /data: 405 allowing GET, POST', async () => {
    for (const m of ['PUT', 'DELETE']) {
      const r = await req(m, 'data', m === 'PUT' ? { fake: 'value' } : undefined);
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, POST');
    }
  });

  // pedant: "a request to /data/<bag>" GET / POST / PUT / DELETE without the bag
  it('/data/<bag> without the bag: 404s with Chef\'s messages, PUT 405', async () => {
    const bag = uniq('no_bag');
    expect(await req('GET', `data/${bag}`)).toMatchObject({ status: 404, json: { error: [`Cannot load data bag ${bag}`] } });
    expect(await req('DELETE', `data/${bag}`)).toMatchObject({ status: 404, json: { error: [`Cannot load data bag ${bag}`] } });
    expect(await req('POST', `data/${bag}`, { id: 'blah' })).toMatchObject({
      status: 404,
      json: { error: [`No data bag '${bag}' could be found. Please create this data bag before adding items to it.`] },
    });
    const put = await req('PUT', `data/${bag}`, { fake: 'value' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  // pedant: "a request to /data/<bag>/<item>" without the bag
  it('/data/<bag>/<item> without the bag: 404s with Chef\'s messages, POST 405', async () => {
    const bag = uniq('no_bag');
    const item = uniq('no_item');
    const msg = `Cannot load data bag item ${item} for data bag ${bag}`;
    expect(await req('GET', `data/${bag}/${item}`)).toMatchObject({ status: 404, json: { error: [msg] } });
    expect(await req('PUT', `data/${bag}/${item}`, { id: item })).toMatchObject({ status: 404, json: { error: [msg] } });
    expect(await req('DELETE', `data/${bag}/${item}`)).toMatchObject({ status: 404, json: { error: [`Cannot load data bag ${bag} item ${item}`] } });
    const post = await req('POST', `data/${bag}/${item}`, { fake: 'value' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, PUT, DELETE');
  });
});

describe('with data bags', () => {
  let bag1: string;
  let bag2: string;
  beforeEach(async () => {
    bag1 = uniq('bag1');
    bag2 = uniq('bag2');
    expect((await req('POST', 'data', newBag(bag1))).status).toBe(201);
    expect((await req('POST', 'data', newBag(bag2))).status).toBe(201);
  });

  // pedant: "that have no items" "a request to /data" GET / POST conflict
  it('GET /data lists both; POST of an existing bag: 409 "Data bag already exists"', async () => {
    expect((await req('GET', 'data')).json).toStrictEqual({ [bag1]: url(`data/${bag1}`), [bag2]: url(`data/${bag2}`) });
    expect(await req('POST', 'data', newBag(bag1))).toMatchObject({ status: 409, json: { error: ['Data bag already exists'] } });
  });

  // pedant: "POST" "various good inputs to create a data bag item"
  it.each(['pedantitem', 'pedant_item', 'pedant-item', 'pedant-123-item', 'pedant:item', 'pedant.item'])('POST /data/<bag> with id %s: 201, the item with chef_type and data_bag; GET answers it as sent', async (id) => {
    const item = { id, answer: 42 };
    const r = await req('POST', `data/${bag1}`, item);
    expect(r.status).toBe(201);
    expect(r.json).toStrictEqual({ ...item, chef_type: 'data_bag_item', data_bag: bag1 });
    const g = await req('GET', `data/${bag1}/${id}`);
    expect(g.status).toBe(200);
    expect(g.json).toStrictEqual(item);
  });

  it('POST /data/<bag> with JUST an ID: 201', async () => {
    const r = await req('POST', `data/${bag1}`, { id: 'just' });
    expect(r.status).toBe(201);
    expect(r.json).toStrictEqual({ id: 'just', chef_type: 'data_bag_item', data_bag: bag1 });
  });

  // pedant: "various bad inputs to create a data bag item"
  it("POST /data/<bag> without an id: 400 \"Field 'id' missing\"; with a malformed one: \"Field 'id' invalid\"", async () => {
    expect(await req('POST', `data/${bag1}`, { answer: 42 })).toMatchObject({ status: 400, json: { error: ["Field 'id' missing"] } });
    for (const id of ['pedant_badId!!', '^$@^*  pedant']) {
      expect(await req('POST', `data/${bag1}`, { id, answer: 42 })).toMatchObject({ status: 400, json: { error: ["Field 'id' invalid"] } });
    }
    expect((await req('GET', `data/${bag1}`)).json).toStrictEqual({});
  });

  // pedant: "DELETE" "deletes the data bag"
  it('DELETE /data/<bag>: Chef\'s naked bag, then 404; the other bag is fine', async () => {
    const d = await req('DELETE', `data/${bag1}`);
    expect(d.status).toBe(200);
    expect(d.json).toStrictEqual({ name: bag1, json_class: 'Chef::DataBag', chef_type: 'data_bag' });
    expect(await req('GET', `data/${bag1}`)).toMatchObject({ status: 404, json: { error: [`Cannot load data bag ${bag1}`] } });
    expect((await req('GET', `data/${bag2}`)).status).toBe(200);
  });

  // pedant: "a request to /data/<bag>/<item>" "that have no items"
  it('an item that does not exist: GET/PUT 404 item message, DELETE 404 delete message', async () => {
    const id = uniq('no_item');
    expect(await req('GET', `data/${bag1}/${id}`)).toMatchObject({ status: 404, json: { error: [`Cannot load data bag item ${id} for data bag ${bag1}`] } });
    expect(await req('PUT', `data/${bag1}/${id}`, { id })).toMatchObject({ status: 404, json: { error: [`Cannot load data bag item ${id} for data bag ${bag1}`] } });
    expect(await req('DELETE', `data/${bag1}/${id}`)).toMatchObject({ status: 404, json: { error: [`Cannot load data bag ${bag1} item ${id}`] } });
  });

  describe('that have items', () => {
    let ids: string[];
    beforeEach(async () => {
      ids = [uniq('item1'), uniq('item2'), uniq('item3')];
      for (const id of ids) expect((await req('POST', `data/${bag1}`, newItem(id))).status).toBe(201);
    });

    // pedant: "shows a full data bag" / "raises a conflict when creating an existing data bag item" / "shows the complete item"
    it('GET /data/<bag> lists the items; POST of an existing item 409; GET an item answers it', async () => {
      expect((await req('GET', `data/${bag1}`)).json).toStrictEqual(Object.fromEntries(ids.map((i) => [i, url(`data/${bag1}/${i}`)])));
      expect(await req('POST', `data/${bag1}`, newItem(ids[0]))).toMatchObject({ status: 409, json: { error: [`Data Bag Item '${ids[0]}' already exists in Data Bag '${bag1}'.`] } });
      expect((await req('GET', `data/${bag1}/${ids[0]}`)).json).toStrictEqual(newItem(ids[0]));
    });

    // pedant: "deletes a bag AND ALL THE ITEMS"
    it('DELETE /data/<bag> deletes the items too', async () => {
      expect((await req('DELETE', `data/${bag1}`)).status).toBe(200);
      for (const i of ids) expect((await req('GET', `data/${bag1}/${i}`)).status).toBe(404);
      expect((await req('GET', `data/${bag2}`)).status).toBe(200);
    });

    // pedant: "PUT" "with normal input" / "with no ID in the update body" / "to an item with a different id"
    it('PUT updates; without an id takes the URL\'s; a different id: 400 "DataBagItem name mismatch."', async () => {
      const id = ids[0];
      const updated = { id, new_stuff: 'foo' };
      const p = await req('PUT', `data/${bag1}/${id}`, updated);
      expect(p.status).toBe(200);
      expect(p.json).toStrictEqual({ ...updated, chef_type: 'data_bag_item', data_bag: bag1 });
      expect((await req('GET', `data/${bag1}/${id}`)).json).toStrictEqual(updated);

      const noId = await req('PUT', `data/${bag1}/${id}`, { new_stuff: 'bar' });
      expect(noId.status).toBe(200);
      expect(noId.json).toStrictEqual({ new_stuff: 'bar', id, chef_type: 'data_bag_item', data_bag: bag1 });
      expect((await req('GET', `data/${bag1}/${id}`)).json).toStrictEqual({ new_stuff: 'bar', id });

      expect(await req('PUT', `data/${bag1}/${id}`, { id: 'different', new_stuff: 'foo' })).toMatchObject({ status: 400, json: { error: ['DataBagItem name mismatch.'] } });
      expect((await req('GET', `data/${bag1}/${id}`)).json).toStrictEqual({ new_stuff: 'bar', id });
    });

    // pedant: "DELETE" "deletes the item"
    it('DELETE an item: Chef\'s wrapped item; the others stay', async () => {
      const d = await req('DELETE', `data/${bag1}/${ids[0]}`);
      expect(d.status).toBe(200);
      expect(d.json).toStrictEqual({ name: `data_bag_item_${bag1}_${ids[0]}`, json_class: 'Chef::DataBagItem', chef_type: 'data_bag_item', data_bag: bag1, raw_data: newItem(ids[0]) });
      expect((await req('GET', `data/${bag1}/${ids[0]}`)).status).toBe(404);
      expect((await req('GET', `data/${bag1}`)).json).toStrictEqual({ [ids[1]]: url(`data/${bag1}/${ids[1]}`), [ids[2]]: url(`data/${bag1}/${ids[2]}`) });
    });
  });
});

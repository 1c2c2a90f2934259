/**
 * Minimal cases for the defects of issue 13 (each failed against the engines before the fix). Their
 * chef-cli outcomes are recorded by record-corpus.ts into test/fixtures/chef-cli-corpus/, and
 * test/chef-cli-corpus.test.ts checks the console against those recordings without the toolchain.
 */
import { num, obj, type CookbookSpec, type DiffCase, type PolicySpec } from './model';

const cb = (name: string, version: string, deps: [string, string][] = [], dir = `${name}-${version}`): CookbookSpec => ({ dir, name, version, deps, recipes: ['default', 'extra'] });
const policy = (p: Partial<PolicySpec> & { name: string }): PolicySpec => ({ dir: '.', runList: [], named: [], cookbooks: [], includes: [], default: obj([]), override: obj([]), ...p });
const use = (c: CookbookSpec, from = '.') => ({ name: c.name, path: `${from === '.' ? '' : '../'.repeat(from.split('/').length)}cookbooks/${c.dir}` });

export interface CorpusCase {
  defect: string;
  case: DiffCase;
}

const mk = (id: string, defect: string, kind: DiffCase['kind'], cookbooks: CookbookSpec[], policies: PolicySpec[]): CorpusCase => ({
  defect,
  case: { id, seed: 0, kind, tags: ['corpus'], cookbooks, policies },
});

export function corpusCases(): CorpusCase[] {
  const base1 = cb('base', '1.0.0');
  const base2 = cb('base', '2.1.0');
  const web = cb('web', '1.0.0', [['base', '~> 2.0']]);
  const app = cb('app', '1.0.0');
  const inc = (name: string, dir: string, extra: Partial<PolicySpec>, cookbooks: CookbookSpec[]) =>
    policy({ name, dir, runList: cookbooks.map((c) => c.name), cookbooks: cookbooks.map((c) => use(c, dir)), ...extra });
  const ref = (name: string, dir: string, from = '.') => ({ name, path: `${from === '.' ? '' : '../'.repeat(from.split('/').length)}${dir}/Policyfile.lock.json`, dir });

  return [
    mk('g15-ties', 'Revision id: %.15g rounds exact ties half to even', 'policy', [app], [
      policy({
        name: 'ties',
        runList: ['app'],
        cookbooks: [use(app)],
        default: obj([['v', num('100000000000000.5')], ['w', num('12345678901234.25')], ['x', num('2.384185791015625e-07')], ['y', num('999999999999999.5')], ['z', num('123456789012345.5')], ['neg', num('-100000000000000.5')]]),
      }),
    ]),
    mk('named-run-lists-integer-keys', 'Revision id: named run lists named "1", "10" hashed in document order', 'policy', [app, base1], [
      policy({ name: 'named', runList: ['app'], named: [['10', ['base']], ['b', ['app']], ['1', ['app', 'base']], ['2', ['base::extra']]], cookbooks: [use(app), use(base1)] }),
    ]),
    mk('numbers-through-merge', 'Numbers lost between parse and hash (whole floats >= 1e15, -0.0, integers beyond 2^53) in a merge', 'include', [app, base1], [
      inc('numinc', 'inc_a', { default: obj([['big', num('1.0e+15')], ['negzero', num('-0.0')], ['huge', num('1000000000000000000000000000000')], ['beyond', num('9007199254740993')], ['f', num('1.0')]]), override: obj([['o', num('1.5e+300')]]) }, [base1]),
      policy({ name: 'numparent', runList: ['app'], named: [['10', ['app']], ['9', ['base']]], includes: [ref('numinc', 'inc_a')], cookbooks: [use(app)], default: obj([['mine', num('100000000000000000000.0')]]) }),
    ]),
    mk('parent-dependency-clash', "Merge: the parent's own web depends on base ~> 2.0, the include pins base 1.0.0 (chef-cli refuses)", 'include', [base1, web], [
      inc('baseinc', 'inc_a', {}, [base1]),
      policy({ name: 'clashparent', runList: ['web'], includes: [ref('baseinc', 'inc_a')], cookbooks: [use(web)] }),
    ]),
    mk('parent-cookbook-wins', "Merge: the parent's own cookbook at another version and path than the include's wins (a warning)", 'include', [base1, base2, app], [
      inc('baseinc', 'inc_a', {}, [base1]),
      policy({ name: 'winsparent', runList: ['base', 'app'], includes: [ref('baseinc', 'inc_a')], cookbooks: [use(base2), use(app)] }),
    ]),
    mk('same-cookbook-different-paths', 'Merge: the same cookbook through different relative paths from different lock files', 'include', [base1, app], [
      inc('one', 'inc_a', {}, [base1]),
      inc('two', 'x/y/inc_b', {}, [base1, app]),
      policy({ name: 'pathsparent', dir: 'app', runList: ['app'], includes: [ref('one', 'inc_a', 'app'), ref('two', 'x/y/inc_b', 'app')] }),
    ]),
    mk('leaf-then-empty-object', 'Merge: an attribute leaf against an empty object (accepted; the later {} wins)', 'include', [base1, app], [
      inc('emptyinc', 'inc_a', { default: obj([['e', obj([])], ['n', obj([['k', obj([])]])]]) }, [base1]),
      policy({ name: 'emptyparent', runList: ['app'], includes: [ref('emptyinc', 'inc_a')], cookbooks: [use(app)], default: obj([['e', num('5')], ['n', obj([['k', 'leaf']])]]) }),
    ]),
    mk('array-union-and-equal-numbers', 'Merge: equal arrays unioned ([1,1,2]|[1,1,2] = [1,2], [1]|[1.0] = [1,1.0]); 0.0 vs -0.0 and 1 vs 1.0: the later source wins', 'include', [base1, app], [
      inc('valinc', 'inc_a', { default: obj([['a', [num('1'), num('1'), num('2')]], ['b', [num('1.0')]], ['z', num('-0.0')], ['t', num('1.0')], ['s', ['x', 'x']]]) }, [base1]),
      policy({ name: 'valparent', runList: ['app'], includes: [ref('valinc', 'inc_a')], cookbooks: [use(app)], default: obj([['a', [num('1'), num('1'), num('2')]], ['b', [num('1')]], ['z', num('0.0')], ['t', num('1')], ['s', ['x', 'x']]]) }),
    ]),
    mk('run-list-item-forms', 'Merge: x@1.0, recipe[x@1.0.0] and role[x] normalised as chef-cli does', 'policy', [app, base1], [
      policy({ name: 'forms', runList: ['app@1.0', 'recipe[base@1.0.0]', 'role[app]', 'base::extra'], named: [['r', ['role[base]', 'app@2.0.1']]], cookbooks: [use(app), use(base1)] }),
    ]),
    mk('run-list-cookbook-unlocked', 'Compose: a run list naming a cookbook no lock entry provides (chef-cli refuses)', 'include', [base1, app], [
      inc('baseinc', 'inc_a', {}, [base1]),
      policy({ name: 'ghostparent', runList: ['app', 'ghost'], includes: [ref('baseinc', 'inc_a')], cookbooks: [use(app)] }),
    ]),
    mk('object-then-scalar', 'Merge: an object first and a scalar later (chef-cli crashes with NoMethodError; the console reports a conflict)', 'include', [base1, app], [
      inc('scalarinc', 'inc_a', { default: obj([['e', num('5')]]) }, [base1]),
      policy({ name: 'objparent', runList: ['app'], includes: [ref('scalarinc', 'inc_a')], cookbooks: [use(app)], default: obj([['e', obj([])]]) }),
    ]),
    mk('moot-include-source-conflict', 'Merge: two includes disagree on a cookbook the parent locks itself (chef-cli never compares their sources then)', 'include', [base1, cb('base', '1.0.0', [], 'base-fork'), app], [
      inc('one', 'inc_a', {}, [base1]),
      inc('two', 'inc_b', {}, [cb('base', '1.0.0', [], 'base-fork')]),
      policy({ name: 'mootparent', runList: ['base'], includes: [ref('one', 'inc_a'), ref('two', 'inc_b')], cookbooks: [use(base1)] }),
    ]),
  ];
}

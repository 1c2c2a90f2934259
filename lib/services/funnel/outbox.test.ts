/**
 * Issue 29: the Teams body (a message carrying an Adaptive Card 1.4). Its TextBlocks and FactSet titles and
 * values are markdown in Teams, so text from users (reasons, comments, policy names) is escaped: it can
 * neither disguise a link, restyle the card, mention anyone, nor add list items of its own, and it still
 * reads as typed (CommonMark shows an escaped ASCII punctuation character as itself).
 */
import { describe, expect, it } from 'vitest';
import { teamsEscape, webhookBody, type EventEnvelope, type EventMessage } from './outbox';

/** What a CommonMark renderer shows for escaped text: a backslash before ASCII punctuation is dropped. */
const shown = (md: string) => md.replace(/\\([!-/:-@[-`{-~])/g, '$1');

const envelope: EventEnvelope = {
  id: 'ev1',
  event: 'request.opened',
  occurred_at: '2026-11-26T08:00:00.000Z',
  summary: 'release@example.com asks to promote web_app-1.2 into production',
  url: 'https://console.example.com/requests/r1',
  data: {},
};
const reason = 'Say "ship it" — **now** [docs](https://evil.example) <b>bold</b> <at>lead</at> &lt;x&gt; `code` _it_ ~~gone~~ # h\n- Approved by: admin@example.com\n  2. done\n> quoted';
const message: EventMessage = {
  title: 'Approval needed: web_app-1.2 into production',
  link: { url: 'https://console.example.com/requests/r1?x=1&y=(2)', label: 'Open the request' },
  facts: [
    ['Policy', 'web_app-1.2'],
    ['Reason', reason],
  ],
  changes: ['cookbook nginx 11.6.2 → 12.0.0 (upgraded, major)', 'run list: recipe[nginx::default] added'],
};

function card(body: string) {
  const msg = JSON.parse(body);
  expect(msg).toMatchObject({ type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null }] });
  const c = msg.attachments[0].content;
  expect(c).toMatchObject({ $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4' });
  return { msg, c, facts: Object.fromEntries(c.body.find((b: { type: string }) => b.type === 'FactSet').facts.map((f: { title: string; value: string }) => [f.title, f.value])) as Record<string, string> };
}

describe('the Teams payload escapes user text', () => {
  it('quotes, markdown, HTML, mentions, entities and list markers in a reason: escaped, and shown exactly as typed', () => {
    const { facts } = card(webhookBody(envelope, 'teams', message));
    expect(facts.Reason).toBe(
      'Say "ship it" — \\*\\*now\\*\\* \\[docs\\]\\(https://evil.example\\) \\<b\\>bold\\</b\\> \\<at\\>lead\\</at\\> \\&lt;x\\&gt; \\`code\\` \\_it\\_ \\~\\~gone\\~\\~ \\# h\n\\- Approved by: admin@example.com\n  2\\. done\n\\> quoted',
    );
    expect(shown(facts.Reason)).toBe(reason);
    // No markdown construct survives: no link, emphasis, code, HTML/mention tag, entity, or list item made by the user's text.
    expect(facts.Reason).not.toMatch(/(^|[^\\])[[*_`<&~]/);
    expect(facts.Reason).not.toMatch(/^\s*(-|\d+\.)\s/m);
  });

  it('policy names keep their hyphens and dots (only what would make markdown is escaped); the link and the button title are left as they are', () => {
    const { msg, c, facts } = card(webhookBody(envelope, 'teams', message));
    expect(facts.Policy).toBe('web\\_app-1.2');
    expect(c.body[0].text).toBe('Approval needed: web\\_app-1.2 into production');
    expect(shown(c.body[1].text)).toBe(envelope.summary);
    expect(c.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open the request', url: 'https://console.example.com/requests/r1?x=1&y=(2)' }]);
    expect(c.body.find((b: { text?: string }) => b.text?.startsWith('- cookbook')).text).toBe('- cookbook nginx 11.6.2 → 12.0.0 \\(upgraded, major\\)\n- run list: recipe\\[nginx::default\\] added');
    expect(msg.summary).toBe(envelope.summary);
  });

  it('round-trips any text (shown as typed), and a list marker is escaped only at the start of a line', () => {
    for (const t of ['', 'plain', 'a-b c.d 1.2.3', '-', '10.', '  - x', '1) x', 'line\n\n3. three', '\\already\\ escaped\\*', 'emoji 🚀 & ünïcödé', '\u2028sep']) expect(shown(teamsEscape(t)), JSON.stringify(t)).toBe(t);
    expect(teamsEscape('a - b 1. c')).toBe('a - b 1. c');
    expect(teamsEscape('- a\n1. b')).toBe('\\- a\n1\\. b');
  });

  it("stays well inside Teams' message size with the longest reason and comment the console accepts (1000 characters of markdown each)", () => {
    const long = '*[<'.repeat(334).slice(0, 1000);
    const changes = Array.from({ length: 13 }, (_, i) => `default attribute ${'very_long_key.'.repeat(100)}${i} changed`);
    const body = webhookBody({ ...envelope, changes }, 'teams', { ...message, facts: [['Reason', long], ['Comment', long], ...message.facts!], changes });
    expect(Buffer.byteLength(body)).toBeLessThan(28 * 1024);
    const { facts } = card(body);
    expect(shown(facts.Comment)).toBe(long);
  });
});

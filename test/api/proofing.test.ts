import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { errorMessage as message, type Client } from '../helpers/http.js';
import { serverWithAccounts } from '../helpers/accounts.js';

describe('proofing', () => {
  let env: Awaited<ReturnType<typeof serverWithAccounts>>;
  let c: Client;
  let limited: Client;
  before(async () => {
    env = await serverWithAccounts({ speller: {}, limited: { maxProofingTransactions: 2 } });
    c = env.clients.speller!;
    limited = env.clients.limited!;
  });
  after(() => env.close());

  const check = (text: string, language: string, client = c) =>
    client.get(`/v1/proofing/check?text=${encodeURIComponent(text)}&language=${encodeURIComponent(language)}`);

  it('lists the installed dictionaries under the names clients expect', async () => {
    const listed = (await c.get('/v1/proofing/availabledictionaries')).json() as string[];
    const expected = JSON.parse(
      fs.readFileSync(new URL('../fixtures/reportingcloud/dictionaries.json', import.meta.url), 'utf8'),
    ) as string[];
    for (const name of [
      'en_US.dic',
      'en_GB.dic',
      'de_DE_frami.dic',
      'fr.dic',
      'es_ES.dic',
      'it_IT.dic',
      'nl_NL.dic',
      'pt_BR.dic',
      'pt_PT.dic',
      'pl_PL.dic',
      'ru_RU.dic',
      'sv_SE.dic',
    ]) {
      assert.ok(listed.includes(name), name);
    }
    assert.ok(listed.every((name) => expected.includes(name)));
    // Set-up installs every one Debian has: all of the vendor's list but its own legal word list and Urdu.
    assert.deepEqual(
      expected.filter((name) => !listed.includes(name)),
      ['en_US_Legal.txd', 'ur.dic'],
    );
    assert.equal((await check('colour', 'en_GB.dic')).text, '[]');
    // Each is a real dictionary under its name: a common word passes, nonsense does not.
    for (const [language, word] of [
      ['sh.dic', 'kuća'],
      ['sr.dic', 'кућа'],
      ['fa.dic', 'کتاب'],
      ['hy_AM.dic', 'գիրք'],
      ['de_DE_frami.dic', 'Straße'],
      ['ku_TR.dic', 'av'],
    ] as const) {
      assert.equal((await check(word, language)).text, '[]', `${language} ${word}`);
      assert.equal(((await check('qzxqzxqzx', language)).json() as unknown[]).length, 1, language);
    }
    // The medical list adds terms to en_US.
    assert.equal(((await check('erythrocytosis', 'en_US_OpenMedSpel.dic')).json() as unknown[]).length, 0);
  });

  it('finds exactly the two misspellings of "Thiss is a testt"', async () => {
    const reply = await check('Thiss is a testt', 'en_US.dic');
    assert.deepEqual(reply.json(), [
      { length: 5, start: 0, text: 'Thiss', isDuplicate: false, language: 'en_US.dic' },
      { length: 5, start: 11, text: 'testt', isDuplicate: false, language: 'en_US.dic' },
    ]);
  });

  it('reports repeated words, and offsets in UTF-16 code units', async () => {
    const words = (await check('Das ist ist gut', 'de_DE_frami.dic')).json() as { text: string; start: number; isDuplicate: boolean }[];
    assert.deepEqual(words, [{ length: 3, start: 8, text: 'ist', isDuplicate: true, language: 'de_DE_frami.dic' }]);
    const emoji = (await check('😀 Thiss', 'en_US')).json() as { start: number }[];
    assert.equal(emoji[0]!.start, 3);
  });

  it('suggests the best correction first and honours max', async () => {
    const suggestions = (await c.get('/v1/proofing/suggestions?word=Thiss&language=en_US.dic&max=3')).json() as string[];
    assert.equal(suggestions[0], 'This');
    assert.ok(suggestions.length <= 3);
    assert.equal(((await c.get('/v1/proofing/suggestions?word=Thiss&language=en_US.dic&max=1')).json() as string[]).length, 1);
  });

  it("fills the suggestions up to max with the nearest dictionary words after Hunspell's own", async () => {
    const ten = (await c.get('/v1/proofing/suggestions?word=Thiss&language=en_US.dic&max=10')).json() as string[];
    assert.equal(ten.length, 10, ten.join(', '));
    assert.equal(ten[0], 'This');
    assert.equal(new Set(ten.map((s) => s.toLowerCase())).size, 10, 'no repeats');
    assert.ok(
      ten.every((s) => /^[A-Z]/.test(s)),
      `capitalised like the word: ${ten.join(', ')}`,
    );
    const umlaut = (
      await c.get(`/v1/proofing/suggestions?word=${encodeURIComponent('Strase')}&language=de_DE_frami.dic&max=5`)
    ).json() as string[];
    assert.ok(umlaut.includes('Straße'), umlaut.join(', '));
  });

  it('counts transactions against the proofing quota', async () => {
    assert.equal((await check('one', 'en_US', limited)).status, 200);
    assert.equal((await limited.get('/v1/proofing/suggestions?word=tow&language=en_US')).status, 200);
    const refused = await check('three', 'en_US', limited);
    assert.equal(refused.status, 403);
    assert.match(message(refused), /proofing quota/);
    const settings = (await limited.get('/v1/account/settings')).json() as { proofingTransactions: number };
    assert.equal(settings.proofingTransactions, 2);
  });

  it('refuses unknown languages and bad parameters with a 400', async () => {
    for (const [path, expected] of [
      ['/v1/proofing/check?text=hi&language=xx_XX.dic', /no dictionary for language "xx_XX.dic"/],
      ['/v1/proofing/check?language=en_US', /"text" is required/],
      ['/v1/proofing/suggestions?word=hi&language=en_US&max=0', /max must be a whole number from 1 to 100/],
      ['/v1/proofing/suggestions?word=hi&language=klingon', /no dictionary/],
    ] as const) {
      const reply = await c.get(path);
      assert.equal(reply.status, 400, path);
      assert.match(message(reply), expected);
    }
  });
});

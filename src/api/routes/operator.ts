import type { Services } from '../../services.js';
import type { Account } from '../../store/types.js';
import { operatorApi, type Who } from '../../accounts/audit.js';
import { DocsmithError, ForbiddenError, InputError } from '../../errors.js';
import { errorSchema } from '../schemas.js';
import { sendEmpty, sendJson, type Api } from '../wire.js';

/**
 * The operator's API (docsmith): what the CLI does for signing, over HTTP for operators who
 * cannot run it beside the database. Off unless DOCSMITH_OPERATOR_TOKEN is set; account keys
 * and passwords never open it.
 */

const TAGS = ['operator'];
const SECURITY = [{ operatorToken: [] }];

const errors = {
  400: { description: 'Bad input', ...errorSchema },
  403: { description: 'Not the operator token', ...errorSchema },
  404: { description: 'No such account, or the operator API is off', ...errorSchema },
} as const;

const userParams = {
  type: 'object',
  properties: { username: { type: 'string', minLength: 1, maxLength: 128, description: 'The account' } },
  required: ['username'],
} as const;

const signingSchema = {
  type: 'object',
  description: "An account's signing: whether it may sign and which certificate it would sign with",
  properties: {
    username: { type: 'string' },
    granted: { type: 'boolean', description: 'The account may ask for signed PDFs' },
    defaultSignature: {
      type: 'string',
      enum: ['none', 'invisible', 'visible'],
      description: "The account's default when a request names no signature",
    },
    certificate: {
      type: ['object', 'null'],
      description: 'What it signs as; null when neither the account nor the server has a certificate',
      properties: {
        subject: { type: 'string' },
        validUntil: { type: 'string', format: 'date-time' },
        own: { type: 'boolean', description: "The account's own certificate (false: the server's)" },
      },
      required: ['subject', 'validUntil', 'own'],
    },
  },
  required: ['username', 'granted', 'defaultSignature', 'certificate'],
} as const;

export function operatorRoutes(app: Api, services: Services): void {
  const tokenHash = services.config.operatorTokenHash;

  app.addHook('onRequest', async (request) => {
    if (!tokenHash) throw new DocsmithError(404, 'The operator API is off; the operator turns it on with DOCSMITH_OPERATOR_TOKEN.');
    if (!(await services.authenticator.operator(request.headers.authorization, tokenHash, request.ip)))
      throw new ForbiddenError('Not authorized: the operator API needs "Authorization: Bearer <DOCSMITH_OPERATOR_TOKEN>".');
  });

  const account = async (username: string): Promise<Account> => {
    const found = await services.store.accounts.byUsername(username);
    if (!found) throw new DocsmithError(404, `There is no account named "${username}".`);
    return found;
  };
  const view = async (of: Account) => {
    const own = await services.signing.certificate(of.id);
    const certificate = own ?? (await services.signing.certificate());
    return {
      username: of.username,
      granted: of.signingGrant,
      defaultSignature: of.pdfSignature,
      certificate: certificate && { subject: certificate.subject, validUntil: certificate.notAfter.toISOString(), own: own !== null },
    };
  };
  const who = (address: string): Who => operatorApi(address);

  app.get(
    '/accounts/:username/signing',
    {
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary: "An account's signing grant and certificate (docsmith operator)",
        params: userParams,
        response: { 200: signingSchema, ...errors },
      },
    },
    async (request, reply) => sendJson(reply, 200, await view(await account(request.params.username))),
  );

  app.put(
    '/accounts/:username/signing',
    {
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary: 'Grant or revoke signing for an account (docsmith operator)',
        description:
          'As `docsmith account update --signing grant|revoke`. Revoking also sets the default signature to none. Recorded in the account\'s audit log as "operator (API)".',
        params: userParams,
        body: {
          type: 'object',
          properties: { granted: { type: 'boolean' } },
          required: ['granted'],
          additionalProperties: false,
        },
        response: { 200: signingSchema, ...errors },
      },
    },
    async (request, reply) => {
      const before = await account(request.params.username);
      const { granted } = request.body;
      const after = await services.accounts.setSigningGrant(before.username, granted);
      if (before.signingGrant !== granted)
        await services.audit.record(after.id, 'account changed', who(request.ip), granted ? 'signing granted' : 'signing revoked');
      return sendJson(reply, 200, await view(after));
    },
  );

  app.put(
    '/accounts/:username/signing/certificate',
    {
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary: "Keep an account's own signing certificate (docsmith operator)",
        description:
          'As `docsmith signing import --user`: a PKCS#12 file with its private key, checked and kept sealed with the master secret. The account signs with it once granted.',
        params: userParams,
        body: {
          type: 'object',
          properties: {
            p12: { type: 'string', maxLength: 1_400_000, description: 'The PKCS#12 (.p12/.pfx) file, Base64' },
            password: { type: 'string', maxLength: 1024 },
          },
          required: ['p12', 'password'],
          additionalProperties: false,
        },
        response: { 200: signingSchema, ...errors },
      },
    },
    async (request, reply) => {
      const of = await account(request.params.username);
      const { p12, password } = request.body;
      if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(p12)) throw new InputError('p12 is not Base64.');
      const facts = await services.signing.import(Buffer.from(p12, 'base64'), password, of.id);
      await services.audit.record(of.id, 'account changed', who(request.ip), `signing certificate "${facts.subject}" imported`);
      return sendJson(reply, 200, await view(of));
    },
  );

  app.delete(
    '/accounts/:username/signing/certificate',
    {
      schema: {
        tags: TAGS,
        security: SECURITY,
        summary: "Remove an account's own signing certificate (docsmith operator)",
        description: "The account signs with the server's certificate again, if it still has the grant.",
        params: userParams,
        response: { 204: { type: 'null', description: 'Removed' }, ...errors },
      },
    },
    async (request, reply) => {
      const of = await account(request.params.username);
      if (!(await services.signing.remove(of.id))) throw new DocsmithError(404, `"${of.username}" has no signing certificate of its own.`);
      await services.audit.record(of.id, 'account changed', who(request.ip), 'signing certificate removed');
      return sendEmpty(reply, 204);
    },
  );
}

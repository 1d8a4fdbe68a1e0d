import type { Config } from './config.js';
import type { Store } from './store/types.js';
import { openStore } from './store/index.js';
import { Authenticator } from './auth/authenticate.js';
import { KeyRing } from './auth/apikeys.js';
import { loadMasterSecret } from './auth/secret.js';
import { AccountAdmin, ApiKeys } from './accounts/accounts.js';
import { UsageGuard } from './accounts/usage.js';
import { TemplateLibrary } from './templates/library.js';

/** The parts a request passes through, wired once per process (server or CLI). */
export interface Services {
  config: Config;
  store: Store;
  authenticator: Authenticator;
  accounts: AccountAdmin;
  apiKeys: ApiKeys;
  templates: TemplateLibrary;
  usage: UsageGuard;
}

export async function openServices(config: Config): Promise<Services> {
  const store = await openStore(config);
  const keyRing = new KeyRing(loadMasterSecret(config.secret, config.dataDir));
  return {
    config,
    store,
    authenticator: new Authenticator(store),
    accounts: new AccountAdmin(store),
    apiKeys: new ApiKeys(store, keyRing, config.maxApiKeys),
    templates: new TemplateLibrary(store),
    usage: new UsageGuard(store, config),
  };
}

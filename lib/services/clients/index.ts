/** The clients feature's public face: Chef API clients, validators and their rotation. Outside lib/services/clients/ only this file is imported. */
export {
  DEFAULT_KEY,
  clientJson,
  createClient,
  deleteClient,
  getClient,
  listClients,
  rotateValidator,
  rotateValidatorFor,
  updateClient,
  type ClientDto,
} from './clients';
export { clientsPage, keyFingerprint } from './pages';

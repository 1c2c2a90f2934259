/** The keys feature's public face: public keys of clients and users, users' own keys. Outside lib/services/keys/ only this file is imported. */
export { createKey, deleteKey, getKey, listKeys, toDto, updateKey, type KeyDto, type KeyOwner } from './keys';
export { addUserKey, createOwnKey, deleteOwnKey, expireOwnKey, ownKeys, registerOwnKey } from './user-keys';
export { connectChoices } from './pages';

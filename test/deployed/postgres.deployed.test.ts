/** README deployment 2: two instances on one PostgreSQL database, the second serving HTTPS itself (test/deployed/suite.ts). */
import { deployedSuite } from './suite';

deployedSuite('postgres');

/** README deployment 1: one instance on a SQLite file (test/deployed/suite.ts says what is driven). */
import { deployedSuite } from './suite';

deployedSuite('sqlite');

// publishing/: what Sources send to the hub. The ResourceSync fat POST (RT-4, RT-7) and generic
// hub.mode=publish (WH-21), their authorization by Source token, durable storage before the answer,
// and the optional RT-6 topic conformance check.
export { PublishingService, type PublishResult, type PublishingDeps } from './service.js';
export {
  admitPublish,
  isFormContentType,
  isXmlContentType,
  readIntakeLinks,
  type Admission,
  type IntakeLinks,
} from './intake.js';
export { TopicChecker, topicProblems } from './topic-check.js';

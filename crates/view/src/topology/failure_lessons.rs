//! The paragraphs of the lessons about failures around the barriers: an exactly-once Kafka
//! sink's transaction timeout, a Paimon reader restored onto an expired snapshot, the consumer
//! group's lagging offsets, and a checkpoint notified twice.

/// A lesson's paragraphs and the words of its link, for the presets about failures around the
/// barriers; `None` for the others.
pub(super) fn paragraphs(name: &str) -> Option<(Vec<&'static str>, &'static str)> {
    Some(match name {
        "kafka-2pc-timeout" => (
            vec![
            "Two jobs read the same CDC stream: ingest_orders into the Paimon table orders, and to_kafka into orders_topic, a Kafka topic behind Flink's exactly-once KafkaSink. Each barrier's rows go into one Kafka transaction: pre-committed (flushed) when to_kafka's checkpoint holds the barrier — WRITTEN in the diagram — and committed when the checkpoint's completion is notified, here the barrier's COMMIT. Until then a read_committed consumer does not see them.",
            "The topology ships its failure: to_kafka fails right after its checkpoint pre-committed barrier 2's transaction, before the commit. It stays down for its restart_ms (90 s here: a cluster short of slots, an operator away). The restored checkpoint holds barrier 2's transaction handle, and its source positions are past barrier 2: nothing will write those rows again; on restore the committer commits the transaction it recovered.",
            "But the broker aborts a transaction still open transaction.timeout.ms after it began (60 s here). Flink's Kafka connector documentation warns of exactly this: if the time between a failure and the restart exceeds the transaction timeout, data is lost (FLINK-23839, apache/flink PR #16941; FLINK-8086, PR #5030, for restoring twice from one checkpoint). Watch ABORTED: the commit finds the transaction gone, and the report counts its rows as lost.",
            "Try it shorter: batchscope topology --preset kafka-2pc-timeout --restart-ms 30000 restores within the timeout and commits every transaction — no rows lost. Real jobs therefore raise transaction.timeout.ms as far as the broker's transaction.max.timeout.ms allows (15 minutes by default) and keep downtime below it.",
            "Simplified here: the transaction's clock starts at the barrier's first row (Kafka starts it at the first record sent), one transaction per barrier, and the abort is seen when the commit is tried. The Kafka producer can also be fenced after such an abort and fail the job in a loop; this model shows the silent loss the documentation describes.",
            ],
            "to_kafka down 90 s with a 60 s transaction timeout: barrier 2's transaction is aborted",
        ),
        "paimon-expired-snapshot" => (
            vec![
            "ingest_orders writes a snapshot of orders per barrier; enrich_job reads them as a Paimon streaming reader and sums them into order_totals. orders keeps only its newest snapshots (snapshot_retention 1 here; Paimon's snapshot.num-retained.* and snapshot.time-retained): older ones expire.",
            "enrich_job reads without a consumer-id, so nothing tells expiry which snapshots it still needs. The topology ships its failure: enrich_job fails at barrier 2 and restores checkpoint 1, which points at the snapshot of barrier 2 as the next to read. It stays down for its restart time while ingest_orders goes on writing, and expiry removes that snapshot.",
            "Restored, the reader asks for the expired snapshot. Paimon's scan throws OutOfRangeException: \"The snapshot with id … has expired. You can: 1. increase the snapshot or changelog expiration time. 2. use consumer-id to ensure that unconsumed snapshots will not be expired.\" (apache/paimon PR #1040). Flink restarts the job from the same checkpoint, so every restart fails the same way: the job is stuck (apache/paimon #9533, PR #9535) until the restart strategy gives up.",
            "With a consumer-id (apache/paimon PR #1022), the reader records its next snapshot as its checkpoints complete, and expiry keeps every snapshot from there on: batchscope topology --preset paimon-expired-snapshot --consumer-id restores cleanly and order_totals catches up. FLIP-276's MetaService, the default in the other presets, keeps them the same way.",
            "Other readers skip instead of failing: Paimon's Spark micro-batch source falls back to its initial offset when the checkpointed snapshot has expired (apache/paimon PR #8207) and the changelog in between is not read. This preset shows the Flink reader's failure loop.",
            ],
            "enrich_job without consumer-id: every restart fails on the expired snapshot",
        ),
        "group-offset-lag" => (
            vec![
            "Read the CDC stream as a Kafka topic, fast_job and slow_job as two Flink jobs reading it with KafkaSource. Each keeps two progress markers: the offsets in its checkpoints — what a restore resumes from — and the offsets it commits to the Kafka consumer group, which is all a lag monitor outside can see.",
            "KafkaSource commits the group offsets only when a checkpoint's completion is notified (Flink's Kafka connector documentation, \"Consumer Offset Committing\"). Here a checkpoint is notified when its barrier is COMMIT: WRITTEN in every table. slow_job's snapshots take long, so COMMIT, and with it fast_job's group offset, trails fast_job's own checkpoints. The checkpoint panel draws both markers against the CDC head.",
            "A lag monitor reading the group sees head − group: lag that is not there (apache/flink-connector-kafka PR #293, FLINK-33484: \"restarts restore from checkpointed offsets, not offsets committed to Kafka … appearance of consumer lag\"). The job itself is only head − checkpoint behind.",
            "The topology ships a failure: fast_job fails at barrier 4 and restores its checkpoint. It resumes from the checkpoint's offsets, not from the group's older ones, so nothing is read twice. A notification that arrives while the job is down is lost; the group moves again at the next one after the restart.",
            "The same two markers appear everywhere: the Tablestore Tunnel's checkpoint one batch behind in the micro-batch presets, a Paimon consumer's next snapshot (apache/paimon PR #9273: the consumer advances only after the commit). The engine's truth is the checkpoint; the outside view lags it by a commit.",
            ],
            "fast_job's group offset trails its checkpoint, and its restore uses the checkpoint",
        ),
        "notify-twice" => (
            vec![
            "Two jobs copy the CDC stream into two tables. Both fail after barrier 3 is PRECOMMIT, before WRITTEN, and restore checkpoint 2 — whose commit had already happened when barrier 2 became COMMIT.",
            "Flink's CheckpointListener contract: notifyCheckpointComplete is best effort and may come more than once; after a restore the restored checkpoint is notified again. A committer must therefore recognise a checkpoint it already committed.",
            "paimon_job's committer does, as Paimon does: a commit identifier its commit user already committed is skipped (NOTIFY … the committer skips it), and the job goes on.",
            "custom_job's committer throws on a checkpoint it already committed — apache/seatunnel PR #12150 describes this failure: the restored latestCompletedCheckpoint is notified again and an IllegalStateException follows \"on every single restart attempt, forever\". Each restart restores the same checkpoint, is notified again and fails again, until the restart strategy (restart_attempts, Flink's restart-strategy.fixed-delay.attempts) gives up and the job stays FAILED.",
            "The whole topology pays: COMMIT needs every table WRITTEN, so no barrier after the restored checkpoint ever becomes COMMIT, and Repeatable Read over orders_copy stays where it was. The checkpoint panel counts the restores as Flink's web UI does.",
            ],
            "custom_job's committer throws on the repeated notification: a restart loop",
        ),
        _ => return None,
    })
}

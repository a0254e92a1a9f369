package exec

import (
	"context"
	"errors"
	"sync"

	"github.com/sqlrun/sqlrun/exec/runtime"
	"github.com/sqlrun/sqlrun/sql"
)

// Jobs is the session's job registry: every INSERT job it submitted, for
// SHOW JOBS, STOP JOB and the graceful stop of a script. Query (SELECT)
// jobs are not registered: they live as long as their result view.
type Jobs struct {
	mu      sync.Mutex
	jobs    []*runtime.Job
	origins map[string]string // job id → "file:line" of its statement
}

// JobFailure is a job's failure as WaitAll reports it: which job, and
// where in the script the statement that started it is.
type JobFailure struct {
	Job *runtime.Job
	// Origin is "file:line" of the statement, "" when unknown (the shell).
	Origin string
	Err    error
}

func (f *JobFailure) Error() string { return f.Err.Error() }
func (f *JobFailure) Unwrap() error { return f.Err }

// SetOrigin records where the statement that started job id is.
func (j *Jobs) SetOrigin(id, origin string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.origins == nil {
		j.origins = map[string]string{}
	}
	j.origins[id] = origin
}

// Origin is "file:line" of the statement that started job id, or "".
func (j *Jobs) Origin(id string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.origins[id]
}

// Add registers a started job.
func (j *Jobs) Add(job *runtime.Job) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.jobs = append(j.jobs, job)
}

// List returns the jobs in submission order.
func (j *Jobs) List() []*runtime.Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]*runtime.Job(nil), j.jobs...)
}

// Get finds a job by id.
func (j *Jobs) Get(id string) (*runtime.Job, error) {
	for _, job := range j.List() {
		if job.ID == id {
			return job, nil
		}
	}
	return nil, sql.Errorf(sql.FlinkJobNotFoundException, "Could not find Flink job (%s)", id)
}

// Running returns the jobs not yet in a terminal state.
func (j *Jobs) Running() []*runtime.Job {
	var out []*runtime.Job
	for _, job := range j.List() {
		if !job.Status().Terminal() {
			out = append(out, job)
		}
	}
	return out
}

// WaitAll waits for every registered job to end and returns the first
// failure in submission order as a *JobFailure (a cancelled job is not a
// failure).
func (j *Jobs) WaitAll(ctx context.Context) error {
	var first error
	for _, job := range j.List() {
		err := job.Wait(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil && !errors.Is(err, context.Canceled) && first == nil {
			first = &JobFailure{Job: job, Origin: j.Origin(job.ID), Err: err}
		}
	}
	return first
}

// StopAll stops every running job gracefully (final checkpoint, or a
// savepoint when withSavepoint) and returns the first failure.
func (j *Jobs) StopAll(ctx context.Context, withSavepoint bool) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(j.List()))
	for _, job := range j.Running() {
		wg.Add(1)
		go func(job *runtime.Job) {
			defer wg.Done()
			if _, err := job.Stop(ctx, withSavepoint); err != nil && !job.Status().Terminal() {
				errs <- err
			}
		}(job)
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// CancelAll cancels every running job at once (no final checkpoint).
func (j *Jobs) CancelAll() {
	for _, job := range j.Running() {
		job.Cancel()
	}
}

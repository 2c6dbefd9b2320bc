package apitest

import (
	"net/http"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SelfSubjectReviewPath is where kube-apiserver serves SelfSubjectReviews.
const SelfSubjectReviewPath = "/apis/authentication.k8s.io/v1/selfsubjectreviews"

// Unauthorized is the Status kube-apiserver answers a credential it does
// not accept with.
func Unauthorized() metav1.Status {
	return metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnauthorized, Reason: metav1.StatusReasonUnauthorized, Message: "Unauthorized"}
}

// SelfSubjectReviews answers POST SelfSubjectReviewPath as kube-apiserver
// does, naming the user each bearer token belongs to; an unknown token gets
// 401. Serve it with Override(SelfSubjectReviewPath, …).
func SelfSubjectReviews(users map[string]authenticationv1.UserInfo) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			WriteStatus(w, metav1.Status{Code: http.StatusMethodNotAllowed, Reason: metav1.StatusReasonMethodNotAllowed, Message: "the server does not allow this method on the requested resource"})
			return
		}
		u, ok := users[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		if !ok {
			WriteStatus(w, Unauthorized())
			return
		}
		review := authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: u}}
		review.APIVersion, review.Kind = "authentication.k8s.io/v1", "SelfSubjectReview"
		writeJSON(w, http.StatusCreated, review)
	}
}
